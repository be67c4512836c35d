import type { Clock } from "../lib/clock"
import { readAtMost } from "../lib/streams"
import type { Http1Client } from "./http1-client"
import { HttpFailure } from "./http1-response"

/** Largest part of a receiver's response that is read; the rest is discarded unread. */
export const RESPONSE_READ_LIMIT_BYTES = 64 * 1024
/** How much of the response body is kept with the attempt, for the operator. */
export const RESPONSE_KEEP_BYTES = 1024

/** One POST to a receiver. */
export interface AttemptRequest {
  url: string
  headers: Record<string, string>
  body: string
}

/** What one attempt came to. */
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
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>

/**
 * Posts one webhook attempt (Standard Webhooks rules): only 2xx is success; redirects are
 * never followed (a 3xx is a failure); the whole attempt, connecting to reading the response,
 * must end within `timeoutMs`, timed by the injected clock; at most 64 KiB of the response is
 * read. Never throws: every failure becomes an outcome to record.
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
      headers: request.headers,
      body: request.body,
      redirect: "manual",
      signal: controller.signal,
    })
    const responseBody = await readCapped(res)
    return finish(answered(res.status, res.headers.get("location"), responseBody))
  } catch (err) {
    const message = timedOut
      ? `timed out after ${options.timeoutMs} ms`
      : options.signal?.aborted
        ? "aborted: wagate was shutting down"
        : describeNetworkError(err)
    return finish({ delivered: false, gone: false, statusCode: null, error: message, responseBody: null })
  } finally {
    deadline.cancel()
    options.signal?.removeEventListener("abort", onOuterAbort)
  }
}

/**
 * Posts one webhook attempt through wagate's own HTTP/1.1 client, with the same rules and the
 * same outcomes as `postAttempt`: the client holds the deadline (one timer for all requests in
 * flight) and reads at most RESPONSE_READ_LIMIT_BYTES, keeping RESPONSE_KEEP_BYTES.
 */
export async function postAttemptDirect(client: Http1Client, request: AttemptRequest, clock: Clock): Promise<AttemptOutcome> {
  const startedMs = clock.nowMs()
  try {
    const answer = await client.post(request.url, request.headers, request.body)
    return { ...answered(answer.status, answer.location, answer.body), latencyMs: clock.nowMs() - startedMs }
  } catch (err) {
    const message = err instanceof HttpFailure ? (err.kind === "aborted" ? "aborted: wagate was shutting down" : err.message) : describeNetworkError(err)
    return { delivered: false, gone: false, statusCode: null, error: message, latencyMs: clock.nowMs() - startedMs, responseBody: null }
  }
}

/**
 * What an answered attempt came to, whichever client carried it: only 2xx is success, a 3xx is
 * a redirect not followed, and 410 asks us to stop.
 */
function answered(status: number, location: string | null, responseBody: string | null): Omit<AttemptOutcome, "latencyMs"> {
  const delivered = status >= 200 && status < 300
  let error: string | null = null
  if (status >= 300 && status < 400) error = `redirect to ${location ?? "(no location)"} not followed`
  else if (!delivered) error = `HTTP ${status}`
  return { delivered, gone: status === 410, statusCode: status, error, responseBody }
}

/** Reads at most RESPONSE_READ_LIMIT_BYTES and returns the first RESPONSE_KEEP_BYTES as text. */
async function readCapped(res: Response): Promise<string | null> {
  if (!res.body) return null
  const length = res.headers.get("content-length")
  const declared = length === null ? Number.NaN : Number(length)
  // The common answer, a short body of declared length, is read as text in one go: no copy,
  // no streaming (both cost more per attempt than the rest of reading the response).
  if (Number.isFinite(declared) && declared <= RESPONSE_KEEP_BYTES) {
    const text = await res.text()
    return text === "" ? null : text
  }
  // A small declared body is read in one go (streaming costs more per attempt).
  const bytes =
    Number.isFinite(declared) && declared <= RESPONSE_READ_LIMIT_BYTES
      ? new Uint8Array(await res.arrayBuffer())
      : (await readAtMost(res.body, RESPONSE_READ_LIMIT_BYTES)).bytes
  const text = Buffer.from(bytes).subarray(0, RESPONSE_KEEP_BYTES).toString("utf8")
  return text === "" ? null : text
}

function describeNetworkError(err: unknown): string {
  const e = err as { code?: string; message?: string }
  if (e.code === "ConnectionRefused" || e.code === "ECONNREFUSED") return "connection refused"
  if (e.code === "ConnectionClosed" || e.code === "ECONNRESET") return "connection closed by the receiver"
  if (e.code === "FailedToOpenSocket" || e.code === "ENOTFOUND") return `could not connect: ${e.message ?? e.code}`
  return e.message ? `request failed: ${e.message}` : "request failed"
}
