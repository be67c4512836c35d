import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { cli, makeDataDir, printedAccountId, printedKey, printedKeyId, printedPhoneId, removeDataDir, serverOn, type DirServer } from "./run-cli"
import { SLOW_HOOK_TIMEOUT_MS } from "../helpers/timeouts"

/*
 * API-DECISIONS §1: CLI CRUD commands work directly on the data directory; the running server
 * sees their effect at once. The "server" here is the same services and app `serve` builds, on
 * the same database file, answering through app.handle.
 */

let dir: string
let server: DirServer
let accountId: string
beforeEach(async () => {
  dir = makeDataDir()
  accountId = printedAccountId((await cli(dir, ["accounts", "create", "--name", "Acme", "--email", "ops@acme.example"])).stdout)
  server = await serverOn(dir)
}, SLOW_HOOK_TIMEOUT_MS)
afterEach(async () => {
  await server.close()
  removeDataDir(dir)
}, SLOW_HOOK_TIMEOUT_MS)

describe("CLI commands beside a running server", () => {
  test("a key created by the CLI works at once; revoked by the CLI, the very next request is 401", async () => {
    const created = await cli(dir, ["keys", "create"])
    const key = printedKey(created.stdout)
    const id = printedKeyId(created.stdout)

    const before = await server.get("/v1/account", key)
    expect(before.status).toBe(200)
    expect(before.body.data.accountId).toBe(accountId)

    expect((await cli(dir, ["keys", "revoke", id])).code).toBe(0)

    const after = await server.get("/v1/account", key)
    expect(after.status).toBe(401)
    expect(after.body).toMatchObject({ success: false, error: "Unauthorized", statusCode: 401, path: "/v1/account" })
    expect(after.headers.get("www-authenticate")).toContain("Bearer")
  })

  test("a phone added by the CLI is listed by GET /v1/phone-numbers at once, and gone once removed", async () => {
    const key = printedKey((await cli(dir, ["keys", "create"])).stdout)
    expect((await server.get("/v1/phone-numbers", key)).body.data).toEqual([])

    const phoneId = printedPhoneId((await cli(dir, ["phones", "add", "+14155550123", "--name", "Support"])).stdout)

    const list = await server.get("/v1/phone-numbers", key)
    expect(list.status).toBe(200)
    expect(list.body.data).toMatchObject([
      { id: phoneId, phoneNumber: "+14155550123", displayName: "Support", connectionStatus: "unpaired" },
    ])
    expect((await server.get("/v1/phone-numbers/%2B14155550123", key)).body.data.id).toBe(phoneId)

    expect((await cli(dir, ["phones", "remove", phoneId])).code).toBe(0)
    expect((await server.get("/v1/phone-numbers", key)).body.data).toEqual([])
    expect((await server.get(`/v1/phone-numbers/${phoneId}`, key)).status).toBe(404)
  })

  test("a subscription set inactive by the CLI refuses live keys on the next request", async () => {
    const live = printedKey((await cli(dir, ["keys", "create", "--env", "live"])).stdout)
    expect((await server.get("/v1/account", live)).status).toBe(200)

    expect((await cli(dir, ["accounts", "update", accountId, "--subscription", "inactive"])).code).toBe(0)
    const refused = await server.get("/v1/account", live)
    expect(refused.status).toBe(403)
    expect(refused.body.message).toEqual(["Live keys require an active subscription; this account's subscription is inactive"])

    expect((await cli(dir, ["accounts", "update", accountId, "--subscription", "active"])).code).toBe(0)
    expect((await server.get("/v1/account", live)).status).toBe(200)
  })

  test("a rate limit changed by the CLI applies from the next request", async () => {
    const key = printedKey((await cli(dir, ["keys", "create"])).stdout)
    expect((await server.get("/v1/account", key)).headers.get("x-ratelimit-limit")).toBe("100")
    expect((await cli(dir, ["accounts", "update", accountId, "--rate-limit", "3"])).code).toBe(0)
    const res = await server.get("/v1/account", key)
    expect(res.headers.get("x-ratelimit-limit")).toBe("3")
    // The bucket is capped at the new capacity.
    expect(Number(res.headers.get("x-ratelimit-remaining"))).toBeLessThanOrEqual(2)
  })
})
