import { afterEach, describe, expect, test } from "bun:test"
import { FAILED_AUTH_PER_MINUTE } from "../../src/domain/rate-limits"
import { createLogger } from "../../src/lib/logger"
import { createHarness, type Harness } from "../helpers/harness"

/*
 * The failed-authentication throttle counts per client address as `clientInfo` decides it, over
 * a real socket (the peer is 127.0.0.1): a forged X-Forwarded-For moves nothing unless the
 * peer is a trusted proxy.
 */

let h: Harness | undefined
afterEach(async () => {
  await h?.app.stop(true)
  await h?.close()
  h = undefined
})

async function listening(trustedProxies: string, logLines: string[] = []): Promise<string> {
  h = await createHarness({
    env: trustedProxies === "" ? {} : { WAGATE_TRUSTED_PROXIES: trustedProxies },
    logger: createLogger({ level: "warn", format: "json", nowIso: () => "t", write: (line) => logLines.push(line) }),
  })
  h.app.listen({ port: 0, hostname: "127.0.0.1" })
  return `http://127.0.0.1:${h.app.server!.port}`
}

const attempt = (base: string, path: string, forwardedFor: string) =>
  fetch(`${base}${path}`, { headers: { authorization: "Bearer wrong", "x-forwarded-for": forwardedFor } }).then((r) => r.status)

describe("a forged X-Forwarded-For from an untrusted peer", () => {
  test.each(["/v1/account", "/admin/v1/accounts"])("cannot dodge the failed-auth throttle on %s: a new address per attempt is still one client", async (path) => {
    const logLines: string[] = []
    const base = await listening("", logLines)
    for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) expect(await attempt(base, path, `198.51.100.${i + 1}`)).toBe(401)
    expect(await attempt(base, path, "198.51.100.200")).toBe(429)
    // Logged once, when the budget ran out, with the socket's address.
    const warned = logLines.filter((l) => l.includes("too many failed authentication attempts"))
    expect(warned).toHaveLength(1)
    expect(JSON.parse(warned[0]!).ip).toBe("127.0.0.1")
  })

  test("/v1 keys and the admin token have a budget each per address", async () => {
    const base = await listening("")
    for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) expect(await attempt(base, "/v1/account", "x")).toBe(401)
    expect(await attempt(base, "/v1/account", "x")).toBe(429)
    expect(await attempt(base, "/admin/v1/accounts", "x")).toBe(401)
  })

  test("is ignored when the peer is not in the trusted list", async () => {
    const base = await listening("10.0.0.0/8")
    for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) expect(await attempt(base, "/v1/account", `198.51.100.${i + 1}`)).toBe(401)
    expect(await attempt(base, "/v1/account", "198.51.100.200")).toBe(429)
  })
})

describe("behind a trusted proxy", () => {
  test("each forwarded client has its own budget", async () => {
    const base = await listening("127.0.0.1")
    for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) expect(await attempt(base, "/v1/account", "198.51.100.1")).toBe(401)
    expect(await attempt(base, "/v1/account", "198.51.100.1")).toBe(429)
    // Another client behind the same proxy is unaffected.
    expect(await attempt(base, "/v1/account", "198.51.100.2")).toBe(401)
  })

  test("a client prepending addresses to the proxy's header cannot change its own", async () => {
    const base = await listening("127.0.0.1")
    for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) expect(await attempt(base, "/v1/account", `203.0.113.${i + 1}, 198.51.100.1`)).toBe(401)
    expect(await attempt(base, "/v1/account", "203.0.113.250, 198.51.100.1")).toBe(429)
  })
})
