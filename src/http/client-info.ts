import ipaddr from "ipaddr.js"
import type { CidrList } from "../lib/net-policy"

/** What can tell the socket peer of a request: Bun's server, or a stand-in in tests. */
export interface PeerSource {
  requestIP(request: Request): { address: string } | null
}

/** Who sent a request, as far as wagate may believe it. */
export interface ClientInfo {
  /** The client's address: the socket peer, or behind trusted proxies the right-most untrusted X-Forwarded-For hop. */
  ip: string
  /** True when the client reached us over HTTPS: directly, or per a trusted proxy's X-Forwarded-Proto. */
  secure: boolean
}

/**
 * The one place that decides who a request came from (docs/operations.md § "Behind a
 * reverse proxy"). `X-Forwarded-For` and `X-Forwarded-Proto` are anyone's to write, so they are read only
 * when the socket peer is one of the operator's trusted proxies; otherwise a client could pick
 * any address and slip past the failed-authentication throttle. `X-Forwarded-For` is read from
 * the right, skipping trusted hops: the right-most untrusted hop is the one our own proxy saw,
 * while everything left of it is what the client claimed.
 */
export function clientInfo(server: PeerSource | null | undefined, request: Request, trustedProxies: CidrList): ClientInfo {
  const directSecure = request.url.startsWith("https:")
  const peer = parseAddress(server?.requestIP(request)?.address ?? "")
  if (peer === null) return { ip: "unknown", secure: directSecure }
  if (!isTrusted(peer, trustedProxies)) return { ip: peer.toString(), secure: directSecure }
  let client = peer
  const hops = (request.headers.get("x-forwarded-for") ?? "").split(",")
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseAddress(hops[i]!)
    // A malformed hop ends what can be believed: the last good address stands.
    if (hop === null) break
    client = hop
    if (!isTrusted(hop, trustedProxies)) break
  }
  // The nearest proxy's value is the right-most; only it is ours.
  const proto = request.headers.get("x-forwarded-proto")?.split(",").at(-1)?.trim().toLowerCase()
  return { ip: client.toString(), secure: proto === "https" || proto === "http" ? proto === "https" : directSecure }
}

type Address = ipaddr.IPv4 | ipaddr.IPv6

/** An address as found in a socket or a forwarding header ("203.0.113.7", "[2001:db8::1]:443", "::ffff:10.0.0.1"), or null. */
function parseAddress(text: string): Address | null {
  let candidate = text.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(candidate)
  if (bracketed) candidate = bracketed[1]!
  else if (/^[\d.]+:\d+$/.test(candidate)) candidate = candidate.slice(0, candidate.indexOf(":"))
  if (!ipaddr.isValid(candidate)) return null
  // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d; judge it as the IPv4 address it is.
  return ipaddr.process(candidate)
}

function isTrusted(address: Address, trustedProxies: CidrList): boolean {
  return trustedProxies.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits))
}
