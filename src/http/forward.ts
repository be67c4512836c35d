import { holderUrl } from "../domain/wa-targets"
import { errors, type AppError } from "../lib/errors"
import type { HttpDeps } from "./deps"
import type { RawBody } from "./validation"

/*
 * Forwarding between nodes (docs/operations.md § "Running several nodes"). A request that needs
 * a phone's WhatsApp socket fails on a node that does not hold the phone with
 * `errors.phoneOnOtherNode`, which names the holder. Before that 409 leaves, the error handler
 * asks here whether the holder advertised a URL (WAGATE_NODE_URL, stored with its registration);
 * if so the request is replayed there once and the holder's answer streamed back as it comes.
 *
 * Only the error path pays: nothing is kept of a request that succeeds. The routes that can
 * fail this way (pairing, disconnect, logout and removal of a phone; groups, contact checks,
 * presence, reactions, edits, revokes, read receipts and inbound media) read their body, when
 * they have one, through the raw-body parse hook (plugins/body.ts), which keeps it as text of at
 * most 64 KB; that text is what is replayed, so no request, a send least of all, is cloned.
 */

/** Set on a forwarded request; a request carrying it is never forwarded again (it gets the 409). */
export const FORWARDED_BY_HEADER = "X-Wagate-Forwarded-By"
/** Set on a forwarded answer: the node that answered it. */
export const ANSWERED_BY_HEADER = "X-Wagate-Node"
/**
 * How long the holder may take to start answering. The work behind these routes asks WhatsApp
 * and is bounded by its own timeouts (well under this); the answer's body then streams without a
 * deadline, so a pairing event stream stays open.
 */
export const FORWARD_TIMEOUT_MS = 30_000

// RFC 9110 §7.6.1's connection-specific fields, plus those the second hop sets itself: Host and
// Content-Length describe this connection, and Accept-Encoding is dropped so the holder answers
// uncompressed (fetch would inflate a compressed body and leave its Content-Encoding behind).
const HOP_BY_HOP = ["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length", "expect"]
const NOT_REQUESTED = [...HOP_BY_HOP, "accept-encoding"]
const NOT_ANSWERED = [...HOP_BY_HOP, "content-encoding"]

/** Requests that were answered by another node: their usage is recorded there, not here. */
export const answeredElsewhere = new WeakSet<Request>()

export interface Forwarder {
  /** True when the error names a holder and this request may go to it (it was not forwarded already). */
  applies(err: AppError, request: Request): boolean
  /**
   * The holder's answer, or null when the holder advertised no URL (the caller answers the 409).
   * Throws the 503 AppError when the holder does not answer.
   */
  forward(err: AppError, request: Request, body: unknown): Promise<Response | null>
}

/**
 * The holder's registered URL with the request's path and query appended (a URL with a path,
 * behind a proxy, keeps it as a prefix). Null for a stored URL that is not http(s): config.ts
 * refuses those, so only a row written by something else can hold one, and it is not followed.
 */
function targetOf(baseUrl: string, requestUrl: string): URL | null {
  if (!URL.canParse(baseUrl)) return null
  const incoming = new URL(requestUrl)
  const base = new URL(baseUrl)
  if (base.protocol !== "http:" && base.protocol !== "https:") return null
  const target = new URL(`${base.origin}${base.pathname.replace(/\/+$/, "")}${incoming.pathname}${incoming.search}`)
  // Whatever the request's path holds, the request goes to the registered origin or nowhere.
  return target.origin === base.origin ? target : null
}

/** The client's headers for the second hop: without the connection-specific ones, with the mark. */
function forwardedHeaders(request: Request, fromNodeId: string): Headers {
  const headers = new Headers(request.headers)
  const named = (request.headers.get("connection") ?? "").split(",").map((h) => h.trim().toLowerCase())
  for (const name of [...NOT_REQUESTED, ...named]) if (name !== "") headers.delete(name)
  headers.set(FORWARDED_BY_HEADER, fromNodeId)
  return headers
}

function answerOf(upstream: Response, holder: string): Response {
  const headers = new Headers(upstream.headers)
  const named = (upstream.headers.get("connection") ?? "").split(",").map((h) => h.trim().toLowerCase())
  for (const name of [...NOT_ANSWERED, ...named]) if (name !== "") headers.delete(name)
  headers.set(ANSWERED_BY_HEADER, holder)
  return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers })
}

const isRawBody = (body: unknown): body is RawBody => typeof body === "object" && body !== null && typeof (body as RawBody).text === "string"

/** The forwarder of one app; it warns once per holder that stops answering, until it answers again. */
export function createForwarder(deps: HttpDeps): Forwarder {
  const { ctx } = deps
  const unanswering = new Set<string>()

  async function send(target: URL, request: Request, body: unknown, holder: string): Promise<Response> {
    const controller = new AbortController()
    const timer = ctx.clock.setTimer(FORWARD_TIMEOUT_MS, () => controller.abort())
    const hasBody = request.method !== "GET" && request.method !== "HEAD" && isRawBody(body) && body.text !== ""
    try {
      const upstream = await fetch(target, {
        method: request.method,
        headers: forwardedHeaders(request, ctx.config.nodeId),
        body: hasBody ? (body as RawBody).text : undefined,
        // A redirect from the holder goes back to the client as is, never followed to another host.
        redirect: "manual",
        signal: AbortSignal.any([controller.signal, request.signal]),
      })
      unanswering.delete(holder)
      return answerOf(upstream, holder)
    } catch (err) {
      if (!unanswering.has(holder)) {
        unanswering.add(holder)
        ctx.logger.warn("the node holding a phone did not answer a forwarded request; check its WAGATE_NODE_URL and that this node reaches it", {
          node: holder,
          url: target.origin,
          err,
        })
      }
      throw errors.holderUnreachable(holder)
    } finally {
      timer.cancel()
    }
  }

  return {
    applies: (err, request) => err.holderNodeId !== undefined && err.holderNodeId !== ctx.config.nodeId && !request.headers.has(FORWARDED_BY_HEADER),
    async forward(err, request, body) {
      const holder = err.holderNodeId!
      // A database that does not answer leaves the 409 as it was: it names the holder already.
      const base = await holderUrl(ctx, holder).catch(() => null)
      const target = base === null ? null : targetOf(base, request.url)
      if (target === null) return null
      const answer = await send(target, request, body, holder)
      answeredElsewhere.add(request)
      return answer
    },
  }
}
