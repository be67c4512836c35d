import type { Clock } from "../lib/clock"
import { boundedOutsideText } from "../lib/outside-text"
import { readAtMost } from "../lib/streams"

/** Largest part of a receiver's response that is read; then the body is cancelled unread. */
export const RESPONSE_READ_LIMIT_BYTES = 64 * 1024
/** The part of a redirect's target named in the attempt's error, in characters. */
const LOCATION_MAX_CHARS = 200

/** One POST to a receiver. */
export interface AttemptRequest {
  url: string
  headers: Record<string, string>
  body: string
}

/** What one attempt came to. Its `error` and `responseBody` are already bounded and escaped. */
export interface AttemptOutcome {
  /** 2xx: the receiver has the event. */
  delivered: boolean
  /** 410 Gone: the receiver asks us to stop. */
  gone: boolean
  statusCode: number | null
  error: string | null
  latencyMs: number
  responseBody: string | null
}

/** The fetch wagate posts with; tests may pass their own. */
export type FetchLike = (url: string, init: RequestInit & { decompress?: boolean }) => Promise<Response>

/**
 * Posts one webhook attempt (Standard Webhooks rules): only 2xx is success; redirects are
 * never followed (a 3xx is a failure); one deadline, `timeoutMs` on the injected clock, covers
 * connecting, the answer's head and its body; at most 64 KiB of the body is read. Never throws:
 * every failure becomes an outcome to record.
 *
 * It goes through Bun's `fetch`, which parses the receiver's answer off the thread that serves
 * the API and keeps connections alive per origin (docs/webhooks.md § "How requests are sent").
 */
export async function postAttempt(
  request: AttemptRequest,
  options: { timeoutMs: number; clock: Clock; fetch?: FetchLike; signal?: AbortSignal },
): Promise<AttemptOutcome> {
  const startedMs = options.clock.nowMs()
  const controller = new AbortController()
  let timedOut = false
  const deadline = options.clock.setTimer(options.timeoutMs, () => {
    timedOut = true
    controller.abort()
  })
  const onOuterAbort = () => controller.abort()
  options.signal?.addEventListener("abort", onOuterAbort)
  const finish = (o: Omit<AttemptOutcome, "latencyMs">): AttemptOutcome => ({ ...o, latencyMs: options.clock.nowMs() - startedMs })
  try {
    const res = await (options.fetch ?? fetch)(request.url, {
      method: "POST",
      // A compressed answer is not inflated: only its start is kept, for a person to read (the
      // dispatcher asks for `Accept-Encoding: identity`).
      headers: request.headers,
      body: request.body,
      redirect: "manual",
      decompress: false,
      signal: controller.signal,
    })
    const responseBody = await readExcerpt(res)
    return finish(answered(res.status, res.headers.get("location"), responseBody))
  } catch (err) {
    const message = timedOut
      ? `timed out after ${options.timeoutMs} ms`
      : options.signal?.aborted
        ? "aborted: wagate was shutting down"
        : describeNetworkError(err, request.url)
    return finish({ delivered: false, gone: false, statusCode: null, error: boundedOutsideText(message), responseBody: null })
  } finally {
    deadline.cancel()
    options.signal?.removeEventListener("abort", onOuterAbort)
  }
}

/** What an answered attempt came to: only 2xx is success, a 3xx is a redirect not followed, and 410 asks us to stop. */
function answered(status: number, location: string | null, responseBody: string | null): Omit<AttemptOutcome, "latencyMs"> {
  const delivered = status >= 200 && status < 300
  let error: string | null = null
  if (status >= 300 && status < 400) error = `redirect to ${location === null ? "(no location)" : boundedOutsideText(location, LOCATION_MAX_CHARS)} not followed`
  else if (!delivered) error = `HTTP ${status}`
  return { delivered, gone: status === 410, statusCode: status, error, responseBody }
}

/**
 * Reads at most RESPONSE_READ_LIMIT_BYTES of the body, then cancels it, and returns its start
 * as bounded text. The deadline's abort ends a read that is still waiting.
 */
async function readExcerpt(res: Response): Promise<string | null> {
  if (!res.body) return null
  const length = res.headers.get("content-length")
  const declared = length === null ? Number.NaN : Number(length)
  // Past 2^53 no length can be meant (nor counted exactly): a malformed answer, not a body to wait for.
  if (declared > Number.MAX_SAFE_INTEGER) {
    await res.body.cancel().catch(() => {})
    throw Object.assign(new Error("Content-Length past 2^53"), { code: "Malformed_HTTP_Response" })
  }
  // The common answer, a short body of declared length, is read as text in one go: streaming
  // costs more per attempt than the rest of reading the response.
  const text =
    Number.isFinite(declared) && declared <= RESPONSE_READ_LIMIT_BYTES
      ? await res.text()
      : Buffer.from((await readAtMost(res.body, RESPONSE_READ_LIMIT_BYTES)).bytes).toString("utf8")
  return text === "" ? null : boundedOutsideText(text)
}

/**
 * Says why an attempt got no answer. Bun's messages name the whole request URL, whose path or
 * query may carry a secret, so a message is used only with that URL cut down to its origin.
 */
function describeNetworkError(err: unknown, url: string): string {
  const e = err as { code?: string; message?: string }
  if (e.code === "ConnectionRefused" || e.code === "ECONNREFUSED") return "connection refused"
  if (e.code === "ConnectionClosed" || e.code === "ECONNRESET") return "connection closed by the receiver"
  if (e.code === "Malformed_HTTP_Response") return "the receiver's answer is not valid HTTP/1.1"
  if (e.code === "FailedToOpenSocket" || e.code === "ENOTFOUND") return `could not connect (${e.code})`
  if (e.code) return `request failed: ${e.code}`
  return e.message ? `request failed: ${withOriginOnly(e.message, url)}` : "request failed"
}

function withOriginOnly(message: string, url: string): string {
  let origin = "the receiver"
  try {
    origin = new URL(url).origin
  } catch {
    // An unparsable URL is named by nothing at all.
  }
  return message.split(url).join(origin)
}
