import { holderUrl } from "../domain/wa-targets"
import { errors, type AppError } from "../lib/errors"
import type { HttpDeps } from "./deps"
import { FORWARDED_BY_HEADER, NODE_SIGNATURE_HEADER, nodeRequestHeaders, pathAndQueryOf } from "./node-requests"
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
 *
 * Every forwarded request is signed with the cluster's node secret (src/http/node-requests.ts),
 * so the holder can believe that this node authenticated the client and charged its key's
 * rate limit. The dashboard's buttons are forwarded too, as the admin API's request for the same
 * change (`toHolder`): the session and CSRF checks stay on the node the browser talks to.
 */

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
  /**
   * Sends a request of this node's own to the holder the error names, signed; the holder's
   * answer, or null when it advertised no URL. Throws the 503 AppError when it does not answer.
   */
  toHolder(err: AppError, request: { method: string; pathAndQuery: string; body: string }): Promise<Response | null>
}

/**
 * The holder's registered URL with the request's path and query appended (a URL with a path,
 * behind a proxy, keeps it as a prefix). Null for a stored URL that is not http(s): config.ts
 * refuses those, so only a row written by something else can hold one, and it is not followed.
 */
function targetOf(baseUrl: string, pathAndQuery: string): URL | null {
  if (!URL.canParse(baseUrl)) return null
  const base = new URL(baseUrl)
  if (base.protocol !== "http:" && base.protocol !== "https:") return null
  const target = new URL(`${base.origin}${base.pathname.replace(/\/+$/, "")}${pathAndQuery}`)
  // Whatever the request's path holds, the request goes to the registered origin or nowhere.
  return target.origin === base.origin ? target : null
}

/** The client's headers for the second hop: without the connection-specific ones, with the node's signature. */
function forwardedHeaders(request: Request, signed: Record<string, string>): Headers {
  const headers = new Headers(request.headers)
  const named = (request.headers.get("connection") ?? "").split(",").map((h) => h.trim().toLowerCase())
  for (const name of [...NOT_REQUESTED, ...named, NODE_SIGNATURE_HEADER.toLowerCase()]) if (name !== "") headers.delete(name)
  for (const [name, value] of Object.entries(signed)) headers.set(name, value)
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

  async function send(target: URL, init: { method: string; headers: Headers; body: string; signal?: AbortSignal }, holder: string): Promise<Response> {
    const controller = new AbortController()
    const timer = ctx.clock.setTimer(FORWARD_TIMEOUT_MS, () => controller.abort())
    try {
      const upstream = await fetch(target, {
        method: init.method,
        headers: init.headers,
        body: init.body === "" ? undefined : init.body,
        // A redirect from the holder goes back to the client as is, never followed to another host.
        redirect: "manual",
        signal: init.signal ? AbortSignal.any([controller.signal, init.signal]) : controller.signal,
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

  /** Where the holder the error names takes `pathAndQuery`; null when it advertised no usable URL. */
  async function targetFor(err: AppError, pathAndQuery: string): Promise<URL | null> {
    // A database that does not answer leaves the 409 as it was: it names the holder already.
    const base = await holderUrl(ctx, err.holderNodeId!).catch(() => null)
    return base === null ? null : targetOf(base, pathAndQuery)
  }

  return {
    applies: (err, request) => err.holderNodeId !== undefined && err.holderNodeId !== ctx.config.nodeId && !request.headers.has(FORWARDED_BY_HEADER),
    async forward(err, request, body) {
      const pathAndQuery = pathAndQueryOf(request)
      const target = await targetFor(err, pathAndQuery)
      if (target === null) return null
      const text = request.method !== "GET" && request.method !== "HEAD" && isRawBody(body) ? body.text : ""
      const signed = await nodeRequestHeaders(deps, { method: request.method, pathAndQuery, body: text })
      const answer = await send(target, { method: request.method, headers: forwardedHeaders(request, signed), body: text, signal: request.signal }, err.holderNodeId!)
      answeredElsewhere.add(request)
      return answer
    },
    async toHolder(err, request) {
      const target = await targetFor(err, request.pathAndQuery)
      if (target === null) return null
      const headers = new Headers(await nodeRequestHeaders(deps, request))
      if (request.body !== "") headers.set("Content-Type", "application/json")
      return send(target, { method: request.method, headers, body: request.body }, err.holderNodeId!)
    },
  }
}
