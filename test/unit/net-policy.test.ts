import { describe, expect, test } from "bun:test"
import { isAllowedAddress, isPublicUnicast, mediaUrlProblem, parseCidrList } from "../../src/lib/net-policy"

describe("isPublicUnicast", () => {
  test.each([
    { name: "IPv4 loopback", ip: "127.0.0.1" },
    { name: "IPv4 loopback, whole /8", ip: "127.255.0.9" },
    { name: "10/8", ip: "10.1.2.3" },
    { name: "172.16/12, bottom", ip: "172.16.0.1" },
    { name: "172.16/12, top", ip: "172.31.255.255" },
    { name: "192.168/16", ip: "192.168.1.1" },
    { name: "cloud metadata 169.254.169.254", ip: "169.254.169.254" },
    { name: "CGNAT 100.64/10, bottom", ip: "100.64.0.1" },
    { name: "CGNAT 100.64/10, top", ip: "100.127.255.255" },
    { name: "multicast 224/4", ip: "224.0.0.1" },
    { name: "multicast 224/4, top", ip: "239.255.255.250" },
    { name: "reserved 240/4", ip: "240.0.0.1" },
    { name: "broadcast", ip: "255.255.255.255" },
    { name: "unspecified 0.0.0.0", ip: "0.0.0.0" },
    { name: "documentation 192.0.2/24", ip: "192.0.2.1" },
    { name: "benchmarking 198.18/15", ip: "198.18.0.1" },
    { name: "IPv6 unspecified", ip: "::" },
    { name: "IPv6 loopback ::1", ip: "::1" },
    { name: "IPv6 link-local fe80::", ip: "fe80::1" },
    { name: "IPv6 unique local fc00::/7 (fc)", ip: "fc00::1" },
    { name: "IPv6 unique local fc00::/7 (fd)", ip: "fd12:3456::1" },
    { name: "IPv6 multicast", ip: "ff02::1" },
    { name: "IPv4-mapped loopback ::ffff:127.0.0.1", ip: "::ffff:127.0.0.1" },
    { name: "IPv4-mapped private ::ffff:10.0.0.1", ip: "::ffff:10.0.0.1" },
    { name: "NAT64 64:ff9b::/96", ip: "64:ff9b::7f00:1" },
    { name: "6to4 2002::/16", ip: "2002:7f00:1::1" },
    { name: "Teredo 2001::/32", ip: "2001::1" },
    { name: "IPv6 documentation 2001:db8::/32", ip: "2001:db8::1" },
    { name: "IPv4-compatible loopback ::127.0.0.1", ip: "::127.0.0.1" },
    { name: "IPv4-compatible loopback, as URLs write it", ip: "::7f00:1" },
    { name: "IPv4-compatible public ::8.8.8.8", ip: "::8.8.8.8" },
    { name: "IPv4-compatible private ::10.0.0.1", ip: "::a00:1" },
    { name: "IPv6 outside 2000::/3, below", ip: "1fff:ffff::1" },
    { name: "IPv6 outside 2000::/3, above", ip: "4000::1" },
    { name: "IPv6 discard-only 100::/64", ip: "100::1" },
    { name: "not an address", ip: "example.com" },
    { name: "empty", ip: "" },
  ])("$name ($ip) is not public unicast", ({ ip }) => {
    expect(isPublicUnicast(ip)).toBe(false)
  })

  test.each([
    { name: "Google DNS", ip: "8.8.8.8" },
    { name: "Cloudflare DNS", ip: "1.1.1.1" },
    { name: "just above 172.16/12", ip: "172.32.0.1" },
    { name: "just above CGNAT", ip: "100.128.0.1" },
    { name: "just below 10/8", ip: "9.255.255.255" },
    { name: "public IPv6", ip: "2606:4700:4700::1111" },
    { name: "global unicast at the bottom of 2000::/3", ip: "2400:cb00::1" },
    { name: "global unicast near the top of 2000::/3", ip: "3ffe:1::1" },
    { name: "IPv4-mapped public address", ip: "::ffff:8.8.8.8" },
  ])("$name ($ip) is public unicast", ({ ip }) => {
    expect(isPublicUnicast(ip)).toBe(true)
  })
})

describe("parseCidrList", () => {
  test.each([
    { name: "empty text", text: "", count: 0 },
    { name: "only separators and spaces", text: " , ,", count: 0 },
    { name: "one IPv4 range", text: "10.0.0.0/8", count: 1 },
    { name: "several ranges with spaces", text: "10.0.0.0/8, 127.0.0.1/32 ,fc00::/7", count: 3 },
  ])("accepts $name", ({ text, count }) => {
    expect(parseCidrList(text)).toHaveLength(count)
  })

  test("keeps each range's prefix length", () => {
    expect(parseCidrList("10.0.0.0/8,fc00::/7").map(([addr, bits]) => `${addr.toString()}/${bits}`)).toEqual([
      "10.0.0.0/8",
      "fc00::/7",
    ])
  })

  test.each([
    { name: "an address without prefix", text: "10.0.0.1", bad: "10.0.0.1" },
    { name: "a prefix too long for IPv4", text: "10.0.0.0/33", bad: "10.0.0.0/33" },
    { name: "a prefix too long for IPv6", text: "::/129", bad: "::/129" },
    { name: "a host name", text: "example.com/24", bad: "example.com/24" },
    { name: "a bad second entry", text: "10.0.0.0/8, nope", bad: "nope" },
  ])("rejects $name, naming the entry", ({ text, bad }) => {
    expect(() => parseCidrList(text)).toThrow(`"${bad}" is not a CIDR range`)
  })
})

describe("isAllowedAddress", () => {
  const allow = parseCidrList("10.0.0.0/8, 127.0.0.1/32, fc00::/7")

  test.each([
    { name: "a public address needs no allow-list", ip: "8.8.8.8", list: [] as ReturnType<typeof parseCidrList>, allowed: true },
    { name: "a private address is refused without an allow-list", ip: "10.1.2.3", list: [], allowed: false },
    { name: "10/8 allowed", ip: "10.1.2.3", list: allow, allowed: true },
    { name: "127.0.0.1/32 allows exactly that address", ip: "127.0.0.1", list: allow, allowed: true },
    { name: "127.0.0.1/32 does not allow 127.0.0.2", ip: "127.0.0.2", list: allow, allowed: false },
    { name: "192.168/16 is not in the list", ip: "192.168.1.1", list: allow, allowed: false },
    { name: "fc00::/7 allows a unique-local address", ip: "fd00::5", list: allow, allowed: true },
    { name: "an IPv4-mapped address matches its IPv4 range", ip: "::ffff:10.0.0.5", list: allow, allowed: true },
    { name: "an IPv4 range does not allow IPv6 loopback", ip: "::1", list: allow, allowed: false },
    { name: "a non-address is refused", ip: "localhost", list: allow, allowed: false },
  ])("$name", ({ ip, list, allowed }) => {
    expect(isAllowedAddress(ip, list)).toBe(allowed)
  })
})

describe("mediaUrlProblem", () => {
  const noAllow = parseCidrList("")
  const PRIVATE = "must point to a public address"
  const HOST = "must point to a public host"

  test.each([
    // Scheme and syntax.
    { name: "http:", url: "http://example.com/a.png", problem: "must use https" },
    { name: "data:", url: "data:image/png;base64,iVBORw0KGgo=", problem: "must use https" },
    { name: "file:", url: "file:///etc/passwd", problem: "must use https" },
    { name: "ftp:", url: "ftp://example.com/a.png", problem: "must use https" },
    { name: "a relative URL", url: "/a.png", problem: "must be an absolute https:// URL" },
    { name: "not a URL", url: "not a url", problem: "must be an absolute https:// URL" },
    { name: "over 2048 characters", url: `https://example.com/${"a".repeat(2_029)}`, problem: "must be at most 2048 characters" },
    // Credentials and ports.
    { name: "user:pass@", url: "https://user:pass@example.com/a.png", problem: "must not contain credentials" },
    { name: "user@ without password", url: "https://user@example.com/a.png", problem: "must not contain credentials" },
    { name: "port 8443", url: "https://example.com:8443/a.png", problem: "must use the default HTTPS port" },
    { name: "port 80", url: "https://example.com:80/a.png", problem: "must use the default HTTPS port" },
    // IPv4 literals in every spelling the URL parser accepts.
    { name: "loopback", url: "https://127.0.0.1/a.png", problem: PRIVATE },
    { name: "10/8", url: "https://10.0.0.1/", problem: PRIVATE },
    { name: "172.16/12", url: "https://172.20.1.1/", problem: PRIVATE },
    { name: "192.168/16", url: "https://192.168.0.10/", problem: PRIVATE },
    { name: "cloud metadata", url: "https://169.254.169.254/latest/meta-data/", problem: PRIVATE },
    { name: "CGNAT", url: "https://100.64.0.1/", problem: PRIVATE },
    { name: "multicast", url: "https://224.0.0.1/", problem: PRIVATE },
    { name: "0.0.0.0", url: "https://0.0.0.0/", problem: PRIVATE },
    { name: "the single number 0", url: "https://0/", problem: PRIVATE },
    { name: "decimal 2130706433", url: "https://2130706433/", problem: PRIVATE },
    { name: "hex 0x7f.1", url: "https://0x7f.1/", problem: PRIVATE },
    { name: "hex 0x7f000001", url: "https://0x7f000001/", problem: PRIVATE },
    { name: "octal 0177.0.0.1", url: "https://0177.0.0.1/", problem: PRIVATE },
    { name: "short 127.1", url: "https://127.1/", problem: PRIVATE },
    { name: "percent-encoded digit", url: "https://127.0.0.%31/", problem: PRIVATE },
    { name: "trailing dot", url: "https://127.0.0.1./", problem: PRIVATE },
    // IPv6 literals.
    { name: "::1", url: "https://[::1]/", problem: PRIVATE },
    { name: "fe80::", url: "https://[fe80::1]/", problem: PRIVATE },
    { name: "fc00::/7", url: "https://[fd00::1]/", problem: PRIVATE },
    { name: "::ffff:127.0.0.1", url: "https://[::ffff:127.0.0.1]/", problem: PRIVATE },
    { name: "::ffff:169.254.169.254", url: "https://[::ffff:169.254.169.254]/", problem: PRIVATE },
    { name: "64:ff9b::/96", url: "https://[64:ff9b::a9fe:a9fe]/", problem: PRIVATE },
    { name: "2002::/16", url: "https://[2002:a9fe:a9fe::1]/", problem: PRIVATE },
    { name: "IPv4-compatible [::127.0.0.1]", url: "https://[::127.0.0.1]/a.png", problem: PRIVATE },
    { name: "IPv4-compatible [::169.254.169.254]", url: "https://[::169.254.169.254]/", problem: PRIVATE },
    { name: "IPv4-compatible of a public address [::8.8.8.8]", url: "https://[::8.8.8.8]/", problem: PRIVATE },
    { name: "IPv6 outside 2000::/3", url: "https://[4000::1]/", problem: PRIVATE },
    // Names.
    { name: "localhost", url: "https://localhost/a.png", problem: HOST },
    { name: "LOCALHOST in capitals", url: "https://LOCALHOST/a.png", problem: HOST },
    { name: "localhost with a trailing dot", url: "https://localhost./a.png", problem: HOST },
    { name: "*.localhost", url: "https://app.localhost/a.png", problem: HOST },
    { name: "*.local", url: "https://printer.local/a.png", problem: HOST },
    { name: "*.internal", url: "https://metadata.google.internal/a.png", problem: HOST },
    { name: "*.Internal in mixed case", url: "https://Files.Corp.Internal/a.png", problem: HOST },
    { name: "a single-label host", url: "https://intranet/a.png", problem: "must use a fully qualified host name" },
  ])("refuses $name", ({ url, problem }) => {
    expect(mediaUrlProblem(url, noAllow)).toBe(problem)
  })

  test.each([
    { name: "a public name", url: "https://files.example.com/invoice.pdf" },
    { name: "a public name with a trailing dot", url: "https://example.com./a.png" },
    { name: "the explicit port 443", url: "https://example.com:443/a.png" },
    { name: "a query and fragment", url: "https://cdn.example.com/a.png?sig=abc#x" },
    { name: "a public IPv4", url: "https://8.8.8.8/a.png" },
    { name: "a public IPv6", url: "https://[2606:4700:4700::1111]/a.png" },
    { name: "a name that merely contains local", url: "https://localcdn.example.com/a.png" },
    { name: "a name ending in internal without a dot", url: "https://myinternal.com/a.png" },
    { name: "an IDN host", url: "https://bücher.example/a.png" },
    { name: "exactly 2048 characters", url: `https://example.com/${"a".repeat(2_028)}` },
  ])("allows $name", ({ url }) => {
    expect(mediaUrlProblem(url, noAllow)).toBeNull()
  })

  test.each([
    { name: "10/8 through 10.0.0.0/8", url: "https://10.1.2.3/a.png", cidrs: "10.0.0.0/8" },
    { name: "loopback through 127.0.0.0/8", url: "https://127.0.0.1/a.png", cidrs: "127.0.0.0/8" },
    { name: "the decimal form of loopback through 127.0.0.1/32", url: "https://2130706433/", cidrs: "127.0.0.1/32" },
    { name: "IPv6 loopback through ::1/128", url: "https://[::1]/a.png", cidrs: "::1/128" },
    { name: "an IPv4-mapped address through its IPv4 range", url: "https://[::ffff:192.168.1.5]/", cidrs: "192.168.0.0/16" },
    { name: "an allowed address on another port (an internal media server)", url: "https://127.0.0.1:8443/a.png", cidrs: "127.0.0.1/32" },
  ])("an allow-list lets a private range pass: $name", ({ url, cidrs }) => {
    expect(mediaUrlProblem(url, noAllow)).toBe(PRIVATE)
    expect(mediaUrlProblem(url, parseCidrList(cidrs))).toBeNull()
  })

  test.each([
    { name: "an address outside the allowed range", url: "https://10.1.2.3/", cidrs: "192.168.0.0/16", problem: PRIVATE },
    { name: "localhost, which is a name, not an address", url: "https://localhost/", cidrs: "127.0.0.0/8", problem: HOST },
    { name: "http to an allowed address", url: "http://10.1.2.3/", cidrs: "10.0.0.0/8", problem: "must use https" },
    { name: "another port on a public address", url: "https://8.8.8.8:8443/", cidrs: "10.0.0.0/8", problem: "must use the default HTTPS port" },
    { name: "another port on a name", url: "https://media.example.com:8443/", cidrs: "10.0.0.0/8", problem: "must use the default HTTPS port" },
  ])("an allow-list does not let through $name", ({ url, cidrs, problem }) => {
    expect(mediaUrlProblem(url, parseCidrList(cidrs))).toBe(problem)
  })
})
