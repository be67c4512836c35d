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

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3")

/**
 * An address as it will be dialled, or null when `ip` is not one. IPv6 text is first written the
 * way URLs write it (`::127.0.0.1` becomes `::7f00:1`): ipaddr.js reads an IPv4 tail after `::`
 * as IPv4-mapped, which `::127.0.0.1` is not. An IPv4-mapped address (`::ffff:a.b.c.d`) is then
 * the IPv4 address it carries.
 */
function dialledAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!ipaddr.isValid(ip)) return null
  let text = ip
  if (ip.includes(":")) {
    try {
      text = new URL(`http://[${ip}]/`).hostname.slice(1, -1)
    } catch {
      return null
    }
  }
  return ipaddr.process(text)
}

/**
 * True when `ip` is public unicast. Every special IPv4 range (private, loopback, link-local,
 * CGNAT, multicast, documentation…) has a range name other than unicast. IPv6 must be global
 * unicast (`2000::/3`) besides: everything else, IPv4-compatible `::/96` (`[::127.0.0.1]`)
 * included, is refused, and inside `2000::/3` NAT64, 6to4, Teredo and documentation are too.
 */
export function isPublicUnicast(ip: string): boolean {
  const address = dialledAddress(ip)
  if (address === null || address.range() !== "unicast") return false
  return address.kind() === "ipv4" || address.match(GLOBAL_UNICAST_V6)
}

/** True when `ip` is public unicast or inside one of the operator's allowed ranges. */
export function isAllowedAddress(ip: string, allow: CidrList): boolean {
  if (isPublicUnicast(ip)) return true
  const address = dialledAddress(ip)
  if (address === null) return false
  return allow.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits))
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
