import { describe, expect, test } from "bun:test"
import { clientInfo, type PeerSource } from "../../src/http/client-info"
import { ConfigError, loadConfig } from "../../src/config"

/** A stand-in for Bun's server that reports `address` as every request's socket peer. */
const peer = (address: string | null): PeerSource => ({ requestIP: () => (address === null ? null : { address }) })

const request = (headers: Record<string, string> = {}, url = "http://wagate.example/v1/account") => new Request(url, { headers })
const trusted = (text: string) => loadConfig({ WAGATE_TRUSTED_PROXIES: text }).trustedProxies

describe("clientInfo", () => {
  test.each([
    // [case, peer, trusted proxies, headers, expected ip, expected secure]
    ["no trusted proxies: the peer, forwarding headers ignored", "203.0.113.9", "", { "x-forwarded-for": "198.51.100.1", "x-forwarded-proto": "https" }, "203.0.113.9", false],
    ["an untrusted peer cannot claim an address or https", "203.0.113.9", "10.0.0.0/8", { "x-forwarded-for": "198.51.100.1", "x-forwarded-proto": "https" }, "203.0.113.9", false],
    ["a trusted proxy's single hop is the client", "10.0.0.2", "10.0.0.0/8", { "x-forwarded-for": "198.51.100.1" }, "198.51.100.1", false],
    ["a spoofed left part is skipped: the right-most untrusted hop wins", "10.0.0.2", "10.0.0.0/8", { "x-forwarded-for": "1.2.3.4, 198.51.100.1" }, "198.51.100.1", false],
    ["trusted hops on the right are skipped", "10.0.0.2", "10.0.0.0/8", { "x-forwarded-for": "198.51.100.1, 10.0.0.7, 10.0.0.8" }, "198.51.100.1", false],
    ["a chain of only trusted hops gives the left-most", "10.0.0.2", "10.0.0.0/8", { "x-forwarded-for": "10.0.0.9, 10.0.0.7" }, "10.0.0.9", false],
    ["several headers are read as one list", "10.0.0.2", "10.0.0.0/8", { "x-forwarded-for": "1.2.3.4,198.51.100.1" }, "198.51.100.1", false],
    ["a malformed right-most hop leaves the proxy itself", "10.0.0.2", "10.0.0.0/8", { "x-forwarded-for": "198.51.100.1, garbage" }, "10.0.0.2", false],
    ["a malformed hop further left stops the walk at the last good one", "10.0.0.2", "10.0.0.0/8", { "x-forwarded-for": "garbage, 10.0.0.7, 198.51.100.1" }, "198.51.100.1", false],
    ["a trusted proxy without X-Forwarded-For is the client itself", "10.0.0.2", "10.0.0.0/8", {}, "10.0.0.2", false],
    ["hops with ports are understood", "10.0.0.2", "10.0.0.0/8", { "x-forwarded-for": "198.51.100.1:5123" }, "198.51.100.1", false],
    ["bracketed IPv6 hops are understood", "10.0.0.2", "10.0.0.0/8", { "x-forwarded-for": "[2001:db8::7]:443" }, "2001:db8::7", false],
    ["an IPv4-mapped peer is matched as IPv4", "::ffff:127.0.0.1", "127.0.0.1", { "x-forwarded-for": "198.51.100.1" }, "198.51.100.1", false],
    ["an IPv6 proxy range", "fd00::5", "fd00::/8", { "x-forwarded-for": "2001:db8::1" }, "2001:db8::1", false],
    ["a trusted proxy's X-Forwarded-Proto: https is secure", "10.0.0.2", "10.0.0.0/8", { "x-forwarded-proto": "https" }, "10.0.0.2", true],
    ["X-Forwarded-Proto is read from the right (the nearest proxy's value)", "10.0.0.2", "10.0.0.0/8", { "x-forwarded-proto": "https, http" }, "10.0.0.2", false],
    ["X-Forwarded-Proto is case-insensitive", "10.0.0.2", "10.0.0.0/8", { "x-forwarded-proto": "HTTPS" }, "10.0.0.2", true],
  ] as const)("%s", (_case, address, proxies, headers, ip, secure) => {
    expect(clientInfo(peer(address), request(headers), trusted(proxies))).toEqual({ ip, secure })
  })

  test("an https request is secure without any proxy", () => {
    expect(clientInfo(peer("203.0.113.9"), request({}, "https://wagate.example/"), [])).toEqual({ ip: "203.0.113.9", secure: true })
  })

  test("a trusted proxy's X-Forwarded-Proto: http overrides the socket's scheme", () => {
    expect(clientInfo(peer("10.0.0.2"), request({ "x-forwarded-proto": "http" }, "https://wagate.example/"), trusted("10.0.0.0/8")).secure).toBe(false)
  })

  test("without a server (handled in-process) the address is unknown and headers are ignored", () => {
    expect(clientInfo(null, request({ "x-forwarded-for": "198.51.100.1" }), trusted("0.0.0.0/0"))).toEqual({ ip: "unknown", secure: false })
    expect(clientInfo(peer(null), request(), [])).toEqual({ ip: "unknown", secure: false })
  })
})

describe("WAGATE_TRUSTED_PROXIES / --trusted-proxies", () => {
  test("is empty by default", () => {
    expect(loadConfig({}).trustedProxies).toEqual([])
  })

  test("takes CIDR ranges and single addresses, spaces allowed", () => {
    const list = loadConfig({ WAGATE_TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1 ,::1, fd00::/8" }).trustedProxies
    expect(list.map(([range, bits]) => `${range.toString()}/${bits}`)).toEqual(["10.0.0.0/8", "127.0.0.1/32", "::1/128", "fd00::/8"])
  })

  test("the flag wins over the variable", () => {
    const list = loadConfig({ WAGATE_TRUSTED_PROXIES: "10.0.0.0/8" }, { "trusted-proxies": "192.168.0.0/16" }).trustedProxies
    expect(list.map(([range, bits]) => `${range.toString()}/${bits}`)).toEqual(["192.168.0.0/16"])
  })

  test.each([
    ["WAGATE_TRUSTED_PROXIES", {}, { WAGATE_TRUSTED_PROXIES: "10.0.0.0/8, caddy" }, "caddy"],
    ["--trusted-proxies", { "trusted-proxies": "10.0.0.0/33" }, {}, "10.0.0.0/33"],
  ] as const)("a bad entry is refused at start, naming %s, the entry and an example", (name, flags, env, entry) => {
    let message = ""
    try {
      loadConfig(env, flags)
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError)
      message = (err as Error).message
    }
    expect(message).toBe(
      `${name} must be a comma-separated list of the reverse proxies' addresses or CIDR ranges (for example 127.0.0.1,10.0.0.0/8); "${entry}" is neither`,
    )
  })
})
