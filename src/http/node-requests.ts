import type { NodeRequestParts, NodeSignature } from "../domain/node-trust"
import { errors } from "../lib/errors"
import type { PeerSource } from "./client-info"
import type { HttpDeps } from "./deps"
import { refuseAuthentication, throttledAuthentication } from "./plugins/failed-auth"
import type { RawBody } from "./validation"

/*
 * The HTTP side of requests between nodes (src/domain/node-trust.ts says what is signed and
 * why; docs/operations.md § "Running several nodes" what the operator sees). A forwarded
 * request names the node that sent it in X-Wagate-Forwarded-By and carries the signature in
 * X-Wagate-Node-Signature. On `/v1` and `/admin/v1` a request carrying either must prove it:
 * one that does not is refused with 401 and counts as a failed admin-token attempt of its
 * address (the node secret grants what the admin token grants), and a throttled address gets
 * the 429 whatever it sends, as for the admin token.
 */

/** Set on a forwarded request: the node that sent it. A request carrying it is never forwarded again. */
export const FORWARDED_BY_HEADER = "X-Wagate-Forwarded-By"
/** Set on a forwarded request: `t=<ms>;n=<nonce>;s=<hex HMAC>`. */
export const NODE_SIGNATURE_HEADER = "X-Wagate-Node-Signature"

/** The headers that make a request this node sends another one a signed node request. */
export async function nodeRequestHeaders(deps: HttpDeps, parts: NodeRequestParts): Promise<Record<string, string>> {
  const s = await deps.nodeTrust.sign(parts)
  return { [FORWARDED_BY_HEADER]: s.nodeId, [NODE_SIGNATURE_HEADER]: `t=${s.atMs};n=${s.nonce};s=${s.signature}` }
}

/** The path with its query string, as the app routes it (a proxy's prefix is not part of it). */
export function pathAndQueryOf(request: Request): string {
  const url = new URL(request.url)
  return `${url.pathname}${url.search}`
}

function claimedSignature(request: Request): NodeSignature | null {
  const nodeId = request.headers.get(FORWARDED_BY_HEADER)
  const fields = new Map((request.headers.get(NODE_SIGNATURE_HEADER) ?? "").split(";").map((f) => [f.slice(0, f.indexOf("=")).trim(), f.slice(f.indexOf("=") + 1).trim()]))
  const atMs = Number(fields.get("t"))
  const nonce = fields.get("n")
  const signature = fields.get("s")
  if (!nodeId || !nonce || !signature || !/^\d+$/.test(fields.get("t") ?? "")) return null
  return { nodeId, atMs, nonce, signature }
}

/**
 * Null for an ordinary request (it claims no node); the sending node's id for a node request
 * whose signature holds. Throws the 401 (or the throttle's 429) for one that claims a node and
 * cannot prove it.
 */
export async function verifiedNodeRequest(deps: HttpDeps, server: PeerSource | null, request: Request, body: unknown): Promise<string | null> {
  if (!request.headers.has(FORWARDED_BY_HEADER) && !request.headers.has(NODE_SIGNATURE_HEADER)) return null
  const throttled = throttledAuthentication(deps, "admin_token", server, request)
  if (throttled) throw throttled
  const claimed = claimedSignature(request)
  const text = typeof body === "object" && body !== null && typeof (body as RawBody).text === "string" ? (body as RawBody).text : ""
  const why = claimed === null ? "it carries no signature" : await deps.nodeTrust.refusal({ method: request.method, pathAndQuery: pathAndQueryOf(request), body: text }, claimed)
  if (why === null) return claimed!.nodeId
  deps.ctx.logger.debug("refused a request that claims to come from another node", { reason: why })
  throw refuseAuthentication(deps, "admin_token", server, request, errors.nodeRequestUnproven())
}
