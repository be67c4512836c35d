import { afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { createHarness, type Harness } from "../helpers/harness"
import { testPostgres } from "../helpers/postgres"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"

/*
 * A phone's status writes commit in the order its socket reported them (connection-lifecycle.ts,
 * setStatus): on PostgreSQL two writes in flight could commit in either order, and a `pairing`
 * written as the socket opened, landing after the `connected` that followed, left a connected
 * phone shown as pairing (seen as a flaky two-node test under load). Here the first write is held
 * back by hand, which orders the writes the same way on any store; it runs on both stores.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)
beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)

let h: Harness | null = null
afterEach(async () => {
  await h?.close()
  h = null
})

for (const database of ["sqlite", "postgres"] as const) {
  test(`${database}: a status write held back still lands before the later one: the phone that connected meanwhile is shown connected`, async () => {
    h = await createHarness({ database })
    const { phone } = await h.seedTenant({ env: "live" })
    const store = h.services.ctx.store
    const write = store.write.bind(store)
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    let holdNext = true
    let started = 0
    let finished = 0
    store.write = (async (body: Parameters<typeof write>[0]) => {
      started += 1
      if (holdNext) {
        holdNext = false
        await held
      }
      try {
        return await write(body)
      } finally {
        finished += 1
      }
    }) as typeof store.write

    // connect() writes `pairing` (held back here); the socket then opens and reports `connected`.
    await h.services.sessions.connect(phone.id, "qr")
    await waitUntil(() => h!.gateway.sessions.get(phone.id)?.at(-1)?.connects.length === 1, 5_000, "the socket to connect")
    h.gateway.current(phone.id).open(phone.phoneNumber)
    await h.settle()
    release()

    // Every write started has finished (on PostgreSQL the pairing relay writes too): the next
    // status write of the chain starts as soon as the one before it commits, before this polls.
    await waitUntil(() => finished >= 2 && started === finished, 5_000, "both status writes to finish")
    await h.settle()
    expect((await store.findPhone(phone.id))?.connectionStatus).toBe("connected")
  })
}
