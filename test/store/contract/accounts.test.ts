import { expect, setDefaultTimeout, test } from "bun:test"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { account, apiKey, phone } from "./fixtures"
import { describeStores } from "./stores"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

describeStores("accounts", (open) => {
  test("an account reads back as inserted and as updated; an unknown id reads as null", async () => {
    const store = await open()
    await store.insertAccount(account())
    expect(await store.findAccount("acc_1")).toEqual(account())
    expect(await store.findAccount("acc_none")).toBeNull()
    const updated = account({ name: "Acme 2", email: "new@acme.test", subscriptionStatus: "inactive", rateLimitPerMinute: 250, updatedAtMs: TEST_EPOCH_MS + 5 })
    await store.updateAccount({ ...updated, createdAtMs: 1 })
    expect(await store.findAccount("acc_1")).toEqual(updated)
  })

  test("accounts are listed oldest first, by id within one instant", async () => {
    const store = await open()
    await store.insertAccount(account({ id: "acc_c", createdAtMs: TEST_EPOCH_MS }))
    await store.insertAccount(account({ id: "acc_b", createdAtMs: TEST_EPOCH_MS + 1 }))
    await store.insertAccount(account({ id: "acc_a", createdAtMs: TEST_EPOCH_MS }))
    expect((await store.listAccounts()).map((a) => a.id)).toEqual(["acc_a", "acc_c", "acc_b"])
  })

  test("active keys exclude revoked ones and those expired at or before now; phones are counted per account", async () => {
    const store = await open()
    await store.insertAccount(account())
    await store.insertAccount(account({ id: "acc_2" }))
    const now = TEST_EPOCH_MS + 1_000
    await store.insertApiKey(apiKey({ id: "key_live" }))
    await store.insertApiKey(apiKey({ id: "key_future", expiresAtMs: now + 1 }))
    await store.insertApiKey(apiKey({ id: "key_expired", expiresAtMs: now }))
    await store.insertApiKey(apiKey({ id: "key_revoked" }))
    await store.revokeApiKey("key_revoked", now - 1)
    await store.insertApiKey(apiKey({ id: "key_other", accountId: "acc_2" }))
    expect(await store.countActiveKeys("acc_1", now)).toBe(2)
    expect(await store.countActiveKeys("acc_none", now)).toBe(0)
    await store.insertPhone(phone())
    await store.insertPhone(phone({ id: "ph_2", phoneNumber: "+15550000009" }))
    expect(await store.countPhones("acc_1")).toBe(2)
    expect(await store.countPhones("acc_2")).toBe(0)
  })
})

describeStores("api keys", (open) => {
  test("a key reads back by hash and by id with its scopes; keys are listed oldest first per account", async () => {
    const store = await open()
    await store.insertAccount(account())
    await store.insertApiKey(apiKey({ id: "key_b", createdAtMs: TEST_EPOCH_MS + 1, expiresAtMs: TEST_EPOCH_MS + 99 }))
    await store.insertApiKey(apiKey({ id: "key_a", env: "live", scopes: [] }))
    expect(await store.findApiKeyByHash("hash_key_b")).toEqual(apiKey({ id: "key_b", createdAtMs: TEST_EPOCH_MS + 1, expiresAtMs: TEST_EPOCH_MS + 99 }))
    expect(await store.findApiKey("key_a")).toEqual(apiKey({ id: "key_a", env: "live", scopes: [] }))
    expect(await store.findApiKeyByHash("hash_none")).toBeNull()
    expect(await store.findApiKey("key_none")).toBeNull()
    expect((await store.listApiKeys("acc_1")).map((k) => k.id)).toEqual(["key_a", "key_b"])
    expect(await store.listApiKeys("acc_none")).toEqual([])
  })

  test("a second revocation keeps the first time, and the last use only ever moves forward", async () => {
    const store = await open()
    await store.insertAccount(account())
    await store.insertApiKey(apiKey())
    await store.revokeApiKey("key_1", 10)
    await store.revokeApiKey("key_1", 20)
    await store.touchApiKey("key_1", 500)
    await store.touchApiKey("key_1", 400)
    const key = await store.findApiKey("key_1")
    expect([key?.revokedAtMs, key?.lastUsedAtMs]).toEqual([10, 500])
  })

  test("a key hash is unique", async () => {
    const store = await open()
    await store.insertAccount(account())
    await store.insertApiKey(apiKey({ id: "key_1", keyHash: "same" }))
    await expect(store.insertApiKey(apiKey({ id: "key_2", keyHash: "same" }))).rejects.toThrow()
  })
})

describeStores("settings", (open) => {
  test("an unset setting reads as null; a second set replaces the first", async () => {
    const store = await open()
    expect(await store.getSetting("admin_token_hash")).toBeNull()
    await store.setSetting("admin_token_hash", "one")
    await store.setSetting("admin_token_hash", "two")
    expect(await store.getSetting("admin_token_hash")).toBe("two")
  })
})

describeStores("dashboard sessions", (open) => {
  const session = (idHash: string, lastSeenAtMs: number) => ({ idHash, csrfToken: `csrf_${idHash}`, adminFingerprint: "fp", createdAtMs: TEST_EPOCH_MS, lastSeenAtMs })

  test("a session reads back as inserted and as touched; deleting it makes it unknown", async () => {
    const store = await open()
    await store.insertDashboardSession(session("s1", TEST_EPOCH_MS))
    expect(await store.findDashboardSession("s1")).toEqual(session("s1", TEST_EPOCH_MS))
    await store.touchDashboardSession("s1", TEST_EPOCH_MS + 60_000)
    expect((await store.findDashboardSession("s1"))?.lastSeenAtMs).toBe(TEST_EPOCH_MS + 60_000)
    await store.deleteDashboardSession("s1")
    expect(await store.findDashboardSession("s1")).toBeNull()
  })

  test("idle sessions are those last seen strictly before the cutoff; deleting all leaves none", async () => {
    const store = await open()
    await store.insertDashboardSession(session("old", 100))
    await store.insertDashboardSession(session("edge", 200))
    await store.insertDashboardSession(session("new", 300))
    await store.deleteIdleDashboardSessions(200)
    expect([await store.findDashboardSession("old"), (await store.findDashboardSession("edge"))?.idHash, (await store.findDashboardSession("new"))?.idHash]).toEqual([null, "edge", "new"])
    await store.deleteAllDashboardSessions()
    expect(await store.findDashboardSession("new")).toBeNull()
  })
})
