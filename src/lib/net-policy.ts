import ipaddr from "ipaddr.js"
import { codePointLength } from "./formats"

/** A parsed list of CIDR ranges an operator allows despite being non-public. */
export type CidrList = ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>

/** Parses `WAGATE_OUTBOUND_ALLOW_CIDRS` ("10.0.0.0/8, 127.0.0.1/32"); throws on a bad entry. */
export function parseCidrList(text: string): CidrList {
  const out: [ipaddr.IPv4 | ipaddr.IPv6, number][] = []
  for (const entry of text.split(",").map((s) => s.trim()).filter(Boolean)) {
    if (!ipaddr.isValidCIDR(entry)) throw new Error(`"${entry}" is not a CIDR range (example: 10.0.0.0/8)`)
    out.push(ipaddr.parseCIDR(entry))
  }
  return out
}

/**
 * True when `ip` is public unicast. `process` unwraps IPv4-mapped IPv6 (`::ffff:127.0.0.1`) so
 * it is judged as the IPv4 address it is; every special range (private, loopback, link-local,
 * CGNAT, multicast, NAT64, 6to4, Teredo, documentation…) has a range name other than unicast.
 */
export function isPublicUnicast(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false
  return ipaddr.process(ip).range() === "unicast"
}

/** True when `ip` is public unicast or inside one of the operator's allowed ranges. */
export function isAllowedAddress(ip: string, allow: CidrList): boolean {
  if (isPublicUnicast(ip)) return true
  if (!ipaddr.isValid(ip)) return false
  const addr = ipaddr.process(ip)
  return allow.some(([range, bits]) => range.kind() === addr.kind() && addr.match(range, bits))
}

const BLOCKED_SUFFIXES = [".localhost", ".local", ".internal"]
export const MEDIA_URL_MAX_LENGTH = 2048

/**
 * Request-time check of one media URL (docs/decisions.md § "Errors and validation"). Returns why the URL is refused, or
 * null when it may be fetched later. This cannot see where a name resolves to; the fetcher
 * checks the dialled address again.
 */
export function mediaUrlProblem(raw: string, allow: CidrList): string | null {
  if (codePointLength(raw) > MEDIA_URL_MAX_LENGTH) return `must be at most ${MEDIA_URL_MAX_LENGTH} characters`
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return "must be an absolute https:// URL"
  }
  if (url.protocol !== "https:") return "must use https"
  if (url.username !== "" || url.password !== "") return "must not contain credentials"
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
  const defaultPort = url.port === "" || url.port === "443"
  if (ipaddr.isValid(host)) {
    if (!isAllowedAddress(host, allow)) return "must point to a public address"
    // An address the operator allowed explicitly (an internal media server, a test host) may use
    // any port; everything else must be plain HTTPS on 443.
    return defaultPort || !isPublicUnicast(host) ? null : "must use the default HTTPS port"
  }
  const name = host.toLowerCase().replace(/\.$/, "")
  if (name === "localhost" || BLOCKED_SUFFIXES.some((s) => name.endsWith(s))) return "must point to a public host"
  if (!name.includes(".")) return "must use a fully qualified host name"
  if (!defaultPort) return "must use the default HTTPS port"
  return null
}
