import { hmacSha256Hex, randomBase62, sha256Hex, constantTimeEqual } from "../lib/secrets"
import type { DomainContext } from "./context"

/*
 * Requests between nodes (docs/operations.md § "Running several nodes"). A node that forwards a
 * request to the node holding a phone signs it with the cluster's node secret: an HMAC-SHA-256
 * over the method, the path with its query, the body's SHA-256, the time, a nonce and the node's
 * id. The holder believes such a request where it would otherwise believe nothing but the
 * client's own credentials: it charges no rate-limit token a second time, and it acts on a
 * dashboard button pressed on another node, whose session and CSRF token that node checked.
 *
 * The secret is generated into the database by the first node that starts (the settings table);
 * nodes starting at once agree on the first one written. It is never shown: not in a response,
 * a log line or an export. Anyone who reads it from the database reads everything it guards.
 *
 * A signature is good for NODE_REQUEST_VALIDITY_MS either side of the holder's clock (nodes keep
 * their clocks in sync for the leases already) and once only: the holder remembers each one it
 * accepted until it expires, so a request caught on the wire cannot be played again, whatever
 * it does.
 */

/** How far a signed request's time may be from the holder's clock, either way: the lease length. */
export const NODE_REQUEST_VALIDITY_MS = 15_000
/** Signatures remembered at most; past it the oldest is forgotten first (more than 3,000 forwarded requests a second). */
const MAX_REMEMBERED = 100_000
const SIGNING_VERSION = "wagate-node-request-1"

/** What a signature covers, besides the node that signs and the time. */
export interface NodeRequestParts {
  method: string
  /** The path with its query string, as sent (`/admin/v1/phones/ph_1/connect?x=1`). */
  pathAndQuery: string
  /** The body as sent; "" for none. */
  body: string
}

/** A signature and what the receiving node needs to check it. */
export interface NodeSignature {
  nodeId: string
  atMs: number
  nonce: string
  signature: string
}

export interface NodeTrust {
  /** The cluster's node secret, generated into the database when there is none yet. */
  secret(): Promise<string>
  /** Signs a request this node sends to another. */
  sign(parts: NodeRequestParts): Promise<NodeSignature>
  /**
   * Null when the signature is good, fresh and seen for the first time (it is remembered then);
   * otherwise why it is refused, for the log.
   */
  refusal(parts: NodeRequestParts, claimed: NodeSignature): Promise<string | null>
}

function signedText(parts: NodeRequestParts, s: Omit<NodeSignature, "signature">): string {
  return [SIGNING_VERSION, s.nodeId, parts.method.toUpperCase(), parts.pathAndQuery, sha256Hex(parts.body), String(s.atMs), s.nonce].join("\n")
}

/**
 * The node secret in force: read, or, on the first start of a cluster, generated. Two nodes
 * starting at once both try to insert theirs; the database keeps the first and both read it back.
 */
async function loadOrCreateSecret(ctx: DomainContext): Promise<string> {
  const stored = await ctx.store.getSetting("node_secret")
  if (stored !== null) return stored
  await ctx.store.write(async (q) => q.insertSettingUnlessSet("node_secret", randomBase62(32)))
  const agreed = await ctx.store.getSetting("node_secret")
  if (agreed === null) throw new Error("the node secret was written but does not read back")
  return agreed
}

export function createNodeTrust(ctx: DomainContext): NodeTrust {
  let loading: Promise<string> | null = null
  let skewWarned = false
  // Accepted signatures until their time runs out; a Map keeps insertion order, the oldest first.
  const seen = new Map<string, number>()

  function secret(): Promise<string> {
    // A failed read is tried again by the next caller rather than remembered.
    loading ??= loadOrCreateSecret(ctx).catch((err: unknown) => {
      loading = null
      throw err
    })
    return loading
  }

  function firstUse(signature: string, untilMs: number, nowMs: number): boolean {
    if (seen.has(signature)) return false
    for (const [old, expiresAtMs] of seen) {
      if (expiresAtMs > nowMs && seen.size < MAX_REMEMBERED) break
      seen.delete(old)
    }
    seen.set(signature, untilMs)
    return true
  }

  return {
    secret,
    async sign(parts) {
      const unsigned = { nodeId: ctx.config.nodeId, atMs: ctx.clock.nowMs(), nonce: randomBase62(12) }
      return { ...unsigned, signature: hmacSha256Hex(await secret(), signedText(parts, unsigned)) }
    },
    async refusal(parts, claimed) {
      const nowMs = ctx.clock.nowMs()
      const expected = hmacSha256Hex(await secret(), signedText(parts, claimed))
      if (!constantTimeEqual(expected, claimed.signature)) return "its signature does not match (not signed with this cluster's node secret, or changed on the way)"
      if (!Number.isSafeInteger(claimed.atMs) || Math.abs(nowMs - claimed.atMs) > NODE_REQUEST_VALIDITY_MS) {
        // Signed with the secret, so a node of this cluster sent it: their clocks are apart.
        if (!skewWarned) ctx.logger.warn("refused a request from another node whose clock is more than 15 s from this one's; keep the nodes' clocks in sync (NTP)", { node: claimed.nodeId, offsetMs: claimed.atMs - nowMs })
        skewWarned = true
        return "its time is not within 15 s of this node's clock"
      }
      // Entries whose first use ran out can go: the time check refuses them anyway.
      if (!firstUse(claimed.signature, claimed.atMs + NODE_REQUEST_VALIDITY_MS, nowMs)) return "its signature was used already"
      skewWarned = false
      return null
    },
  }
}
