import { expect, setDefaultTimeout, test } from "bun:test"
import type { AttemptRow, DeliveryProgress, DeliveryRow } from "../../../src/store/webhooks"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { describeStores } from "./stores"
import { delivery, endpoint, event, nth, seedAccount, T0 } from "./webhook-rows"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const byId = <T extends { id: string }>(rows: readonly T[]) => [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

describeStores("webhook queries", (open) => {
  test("an endpoint round-trips every field; lists are oldest first, the enabled list is one environment's enabled endpoints", async () => {
    const store = await open()
    await seedAccount(store)
    await seedAccount(store, "acc_2")
    const rotated = endpoint("wh_b", { events: ["*"], previousSecret: "whsec_old", previousSecretExpiresAtMs: T0 + 86_400_000, createdAtMs: T0 + 2 })
    await store.insertEndpoint(endpoint("wh_c", { createdAtMs: T0 + 1, enabled: false }))
    await store.insertEndpoint(rotated)
    await store.insertEndpoint(endpoint("wh_a", { createdAtMs: T0 + 3, env: "live" }))
    await store.insertEndpoint(endpoint("wh_d", { createdAtMs: T0 + 4 }))
    await store.insertEndpoint(endpoint("wh_other", { accountId: "acc_2" }))

    expect(await store.findEndpoint("wh_b")).toEqual(rotated)
    expect(await store.findEndpoint("wh_c")).toEqual(endpoint("wh_c", { createdAtMs: T0 + 1, enabled: false }))
    expect(await store.findEndpoint("wh_none")).toBeNull()
    expect((await store.listEndpoints("acc_1")).map((e) => e.id)).toEqual(["wh_c", "wh_b", "wh_a", "wh_d"])
    expect(byId(await store.listEnabledEndpoints("acc_1", "test")).map((e) => e.id)).toEqual(["wh_b", "wh_d"])
    expect((await store.listEnabledEndpoints("acc_1", "live")).map((e) => e.id)).toEqual(["wh_a"])
    expect(await store.listEndpoints("acc_none")).toEqual([])
  })

  test("updating an endpoint writes its mutable fields only; removing it removes its deliveries and their attempts", async () => {
    const store = await open()
    await seedAccount(store)
    await store.insertEndpoint(endpoint("wh_1"))
    const changed = endpoint("wh_1", { url: "http://127.0.0.1:5678/x", events: ["message.read"], enabled: false, secret: "whsec_new", previousSecret: "whsec_wh_1", previousSecretExpiresAtMs: T0 + 9, updatedAtMs: T0 + 10 })
    // The account, environment and creation time are not the update's to change.
    await store.updateEndpoint({ ...changed, accountId: "acc_x", env: "live", createdAtMs: 1 })
    expect(await store.findEndpoint("wh_1")).toEqual(changed)

    await store.insertEvent(event("evt_1"))
    await store.insertDelivery(delivery("whd_1", "evt_1", "wh_1"))
    await store.insertAttempt({ deliveryId: "whd_1", attemptNumber: 1, attemptedAtMs: T0, statusCode: 500, error: "HTTP 500", latencyMs: 12, responseBody: "no" })
    await store.deleteEndpoint("wh_1")
    expect(await store.findEndpoint("wh_1")).toBeNull()
    expect(await store.findDelivery("whd_1")).toBeNull()
    expect(await store.listAttempts("whd_1")).toEqual([])
    expect(await store.findEvent("evt_1")).toEqual(event("evt_1"))
  })

  test("an event round-trips; findEventsAt finds the events of one account, environment, type and instant only", async () => {
    const store = await open()
    const rows = [
      event("evt_1"),
      event("evt_2"),
      event("evt_other_type", { type: "message.read" }),
      event("evt_other_env", { env: "live" }),
      event("evt_other_account", { accountId: "acc_2" }),
      event("evt_other_time", { occurredAtMs: T0 + 1 }),
    ]
    for (const row of rows) await store.insertEvent(row)
    expect(await store.findEvent("evt_other_time")).toEqual(rows[5]!)
    expect(await store.findEvent("evt_none")).toBeNull()
    expect(byId(await store.findEventsAt("acc_1", "test", "message.delivered", T0))).toEqual([rows[0]!, rows[1]!])
    expect(await store.findEventsAt("acc_1", "test", "message.delivered", T0 + 2)).toEqual([])
  })

  test("scanEventsMentioning finds an account's events of the given types that mention a text, from an instant on, oldest first, within a bounded walk that says where it stopped", async () => {
    const store = await open()
    const about = (id: string, type: string, occurredAtMs: number, patch: Partial<ReturnType<typeof event>> = {}) =>
      event(id, { type, occurredAtMs, body: `{"type":"${type}","data":{"messageId":"msg_1","n":"${id}"}}`, ...patch })
    const rows = [
      about("evt_before", "message.reaction", T0 - 1),
      about("evt_r1", "message.reaction", T0 + 5),
      about("evt_other_type", "message.read", T0 + 6),
      about("evt_other_env", "message.reaction", T0 + 7, { env: "live" }),
      about("evt_other_account", "message.reaction", T0 + 8, { accountId: "acc_2" }),
      event("evt_other_message", { type: "message.reaction", occurredAtMs: T0 + 9, body: '{"data":{"messageId":"msg_2"}}' }),
      about("evt_e1", "message.edited", T0 + 10),
      about("evt_r2", "message.reaction", T0 + 20),
    ]
    for (const row of [...rows].reverse()) await store.insertEvent(row)
    const scan = { accountId: "acc_1", env: "test" as const, types: ["message.reaction", "message.edited"], text: '"messageId":"msg_1"', fromMs: T0, scanLimit: 100 }
    const ids = (r: { events: { id: string }[] }) => r.events.map((e) => e.id)
    const all = await store.scanEventsMentioning(scan)
    expect({ ids: ids(all), searchedUntilMs: all.searchedUntilMs }).toEqual({ ids: ["evt_r1", "evt_e1", "evt_r2"], searchedUntilMs: null })
    expect(all.events[0]).toEqual(rows[1]!)
    // Six events from T0 on come before evt_r2 (at T0 + 20): a walk of six stops at T0 + 10.
    const bounded = await store.scanEventsMentioning({ ...scan, scanLimit: 6 })
    expect({ ids: ids(bounded), searchedUntilMs: bounded.searchedUntilMs }).toEqual({ ids: ["evt_r1", "evt_e1"], searchedUntilMs: T0 + 10 })
    expect(ids(await store.scanEventsMentioning({ ...scan, types: ["message.edited"] }))).toEqual(["evt_e1"])
    expect(ids(await store.scanEventsMentioning({ ...scan, fromMs: T0 + 11 }))).toEqual(["evt_r2"])
  })

  test("a delivery round-trips with its nulls and numbers; updateDelivery writes its progress and nothing else", async () => {
    const store = await open()
    await seedAccount(store)
    await store.insertEndpoint(endpoint("wh_1"))
    await store.insertEvent(event("evt_1"))
    const resend = delivery("whd_2", "evt_1", "wh_1", { resentFrom: "whd_1", status: "failed", attemptCount: 3, firstAttemptAtMs: T0 + 1, nextAttemptAtMs: null, lastStatusCode: 410, lastError: "gone" })
    await store.insertDelivery(delivery("whd_1", "evt_1", "wh_1"))
    await store.insertDelivery(resend)
    expect(await store.findDelivery("whd_1")).toEqual(delivery("whd_1", "evt_1", "wh_1"))
    expect(await store.findDelivery("whd_2")).toEqual(resend)
    expect(await store.findDelivery("whd_none")).toBeNull()

    const progressed: DeliveryRow = { ...delivery("whd_1", "evt_1", "wh_1"), attemptCount: 1, firstAttemptAtMs: T0 + 5, nextAttemptAtMs: T0 + 60_000, lastStatusCode: 503, lastError: "HTTP 503", updatedAtMs: T0 + 6 }
    await store.updateDelivery({ ...progressed, eventId: "evt_x", endpointId: "wh_x", resentFrom: "whd_x", createdAtMs: 1 })
    expect(await store.findDelivery("whd_1")).toEqual(progressed)
  })

  test("the pending lookups see pending deliveries only: by id, and all of them earliest due first", async () => {
    const store = await open()
    await seedAccount(store)
    await store.insertEndpoint(endpoint("wh_1"))
    await store.insertEndpoint(endpoint("wh_2"))
    await store.insertEvent(event("evt_1", { body: '{"a":"ü"}' }))
    await store.insertDelivery(delivery("whd_late", "evt_1", "wh_1", { nextAttemptAtMs: T0 + 500 }))
    await store.insertDelivery(delivery("whd_soon", "evt_1", "wh_2", { nextAttemptAtMs: T0 + 100 }))
    await store.insertDelivery(delivery("whd_done", "evt_1", "wh_1", { status: "succeeded", nextAttemptAtMs: null }))
    await store.insertDelivery(delivery("whd_failed", "evt_1", "wh_2", { status: "failed", nextAttemptAtMs: null }))

    expect(await store.findPendingDeliveryEndpoint("whd_soon")).toBe("wh_2")
    expect(await store.findPendingDeliveryEndpoint("whd_done")).toBeNull()
    expect(await store.findPendingDeliveryEndpoint("whd_none")).toBeNull()
    expect(await store.listPendingDeliveries()).toEqual([{ id: "whd_soon", nextAttemptAtMs: T0 + 100 }, { id: "whd_late", nextAttemptAtMs: T0 + 500 }])
  })

  test("a backlog's tens of thousands of ids are released in one call (a node's start releases its predecessor's claims)", async () => {
    const store = await open()
    await seedAccount(store)
    await store.insertEndpoint(endpoint("wh_1"))
    await store.insertEvent(event("evt_1"))
    await store.insertEventsAndDeliveries([], [delivery("whd_a", "evt_1", "wh_1"), delivery("whd_b", "evt_1", "wh_1", { status: "succeeded" })])
    const ids = [...Array.from({ length: 40_000 }, (_, i) => nth("whd_missing", i)), "whd_a", "whd_b"]
    expect(await store.claimDueDeliveries("node-a", T0, 10, 60_000)).toHaveLength(1)
    expect(await store.releaseClaims("node-a", ids)).toBe(1)
  })

  test("an endpoint's deliveries page newest first, with the total and a status filter; latest and per-event lists agree", async () => {
    const store = await open()
    await seedAccount(store)
    await store.insertEndpoint(endpoint("wh_1"))
    await store.insertEndpoint(endpoint("wh_2"))
    await store.insertEvent(event("evt_1"))
    await store.insertEvent(event("evt_2"))
    const rows = Array.from({ length: 7 }, (_, i) => delivery(nth("whd", i), i % 2 ? "evt_2" : "evt_1", "wh_1", { createdAtMs: T0 + i, status: i % 3 === 0 ? "succeeded" : "pending" }))
    await store.insertEventsAndDeliveries([], [...rows, delivery("whd_elsewhere", "evt_1", "wh_2", { createdAtMs: T0 + 100 })])
    const newestFirst = [...rows].reverse()

    expect(await store.listDeliveries({ endpointId: "wh_1", limit: 3, offset: 0 })).toEqual({ rows: newestFirst.slice(0, 3), total: 7 })
    expect(await store.listDeliveries({ endpointId: "wh_1", limit: 3, offset: 6 })).toEqual({ rows: newestFirst.slice(6), total: 7 })
    const succeeded = newestFirst.filter((d) => d.status === "succeeded")
    expect(await store.listDeliveries({ endpointId: "wh_1", status: "succeeded", limit: 10, offset: 0 })).toEqual({ rows: succeeded, total: 3 })
    expect(await store.listDeliveries({ endpointId: "wh_1", status: "failed", limit: 10, offset: 0 })).toEqual({ rows: [], total: 0 })
    expect(await store.latestDelivery("wh_1")).toEqual(rows[6]!)
    expect(await store.latestDelivery("wh_none")).toBeNull()
    expect(await store.listDeliveriesOfEvent("evt_2")).toEqual(rows.filter((d) => d.eventId === "evt_2"))
  })

  test("keyset windows walk an endpoint's deliveries newest first, ties on creation time broken by id, without gap or overlap", async () => {
    const store = await open()
    await seedAccount(store)
    await store.insertEndpoint(endpoint("wh_1"))
    await store.insertEvent(event("evt_1"))
    // Four deliveries share each creation instant.
    const rows = Array.from({ length: 22 }, (_, i) => delivery(nth("whd", i), "evt_1", "wh_1", { createdAtMs: T0 + Math.floor(i / 4) }))
    await store.insertEventsAndDeliveries([], rows)
    const seen: DeliveryRow[] = []
    let before: { createdAtMs: number; id: string } | null = null
    // Bounded, so a window that ignored `before` fails the test rather than looping for ever.
    for (let pages = 0; pages < 10; pages++) {
      const page = await store.listDeliveriesWindow({ endpointId: "wh_1", before, limit: 5 })
      seen.push(...page)
      if (page.length < 5) break
      before = { createdAtMs: page.at(-1)!.createdAtMs, id: page.at(-1)!.id }
    }
    expect(seen).toEqual([...rows].reverse())
  })

  test("keyset windows filter by status and by event types, paging within the filter without gap or overlap", async () => {
    const store = await open()
    await seedAccount(store)
    await store.insertEndpoint(endpoint("wh_1"))
    const types = ["message.sent", "message.failed", "group.joined"]
    const events = types.map((type, i) => event(nth("evt", i), { type }))
    const statuses = ["succeeded", "failed", "pending"] as const
    const rows = Array.from({ length: 18 }, (_, i) =>
      delivery(nth("whd", i), events[i % 3]!.id, "wh_1", { createdAtMs: T0 + Math.floor(i / 2), status: statuses[Math.floor(i / 3) % 3]! }))
    await store.insertEventsAndDeliveries(events, rows)
    const walk = async (filter: { status?: DeliveryRow["status"]; eventTypes?: string[] }) => {
      const seen: DeliveryRow[] = []
      let before: { createdAtMs: number; id: string } | null = null
      for (let pages = 0; pages < 20; pages++) {
        const page = await store.listDeliveriesWindow({ endpointId: "wh_1", before, limit: 2, ...filter })
        seen.push(...page)
        if (page.length < 2) break
        before = { createdAtMs: page.at(-1)!.createdAtMs, id: page.at(-1)!.id }
      }
      return seen
    }
    const newestFirst = [...rows].reverse()
    const typeOf = (d: DeliveryRow) => types[events.findIndex((e) => e.id === d.eventId)]
    expect(await walk({ status: "failed" })).toEqual(newestFirst.filter((d) => d.status === "failed"))
    expect(await walk({ eventTypes: ["message.sent", "group.joined"] })).toEqual(newestFirst.filter((d) => typeOf(d) !== "message.failed"))
    const both = newestFirst.filter((d) => d.status === "pending" && typeOf(d) === "group.joined")
    expect(both.length).toBeGreaterThan(0)
    expect(await walk({ status: "pending", eventTypes: ["group.joined"] })).toEqual(both)
    expect(await walk({ eventTypes: [] })).toEqual([])
  })

  test("events and deliveries are inserted in bulk exactly, past any chunk size", async () => {
    const store = await open()
    await seedAccount(store)
    await store.insertEndpoint(endpoint("wh_1"))
    const events = Array.from({ length: 150 }, (_, i) => event(nth("evt", i), { occurredAtMs: T0 + i, body: `{"n":${i},"quote":"it's \\"x\\""}` }))
    const deliveries = events.map((e, i) => delivery(nth("whd", i), e.id, "wh_1", { createdAtMs: T0 + i, nextAttemptAtMs: i % 2 ? null : T0 + i, resentFrom: i % 5 ? null : "whd_x" }))
    await store.insertEventsAndDeliveries(events, deliveries)
    await store.insertEventsAndDeliveries([], [])
    expect(await store.findEvent(nth("evt", 149))).toEqual(events[149]!)
    expect(await store.findEvent(nth("evt", 0))).toEqual(events[0]!)
    expect((await store.listDeliveries({ endpointId: "wh_1", limit: 200, offset: 0 })).rows).toEqual([...deliveries].reverse())
  })

  test("recordAttempts writes a wave's attempts and progress, skipping attempts whose delivery is gone; attempts list in order", async () => {
    const store = await open()
    await seedAccount(store)
    await store.insertEndpoint(endpoint("wh_1"))
    await store.insertEvent(event("evt_1"))
    const deliveries = Array.from({ length: 100 }, (_, i) => delivery(nth("whd", i), "evt_1", "wh_1"))
    await store.insertEventsAndDeliveries([], deliveries)
    const attempt = (id: string, n: number): AttemptRow => ({ deliveryId: id, attemptNumber: n, attemptedAtMs: T0 + n, statusCode: n === 2 ? null : 500 + n, error: n === 2 ? "timeout" : null, latencyMs: 40 + n, responseBody: n === 2 ? null : `body ${n}` })
    const progress = (d: DeliveryRow, n: number): DeliveryProgress => ({ id: d.id, status: n === 2 ? "succeeded" : "pending", attemptCount: n, firstAttemptAtMs: T0 + 1, nextAttemptAtMs: n === 2 ? null : T0 + 60_000, lastStatusCode: n === 2 ? 200 : 501, lastError: n === 2 ? null : "HTTP 501", updatedAtMs: T0 + 100 + n })

    await store.write(async (q) => q.recordAttempts([...deliveries.map((d) => attempt(d.id, 1)), attempt("whd_gone", 1)], deliveries.map((d) => progress(d, 1))))
    await store.write(async (q) => q.recordAttempts(deliveries.slice(0, 3).map((d) => attempt(d.id, 2)), deliveries.slice(0, 3).map((d) => progress(d, 2))))
    await store.recordAttempts([], [])

    expect(await store.listAttempts(nth("whd", 0))).toEqual([attempt(nth("whd", 0), 1), attempt(nth("whd", 0), 2)])
    expect(await store.listAttempts(nth("whd", 99))).toEqual([attempt(nth("whd", 99), 1)])
    expect(await store.listAttempts("whd_gone")).toEqual([])
    expect(await store.findDelivery(nth("whd", 1))).toEqual({ ...deliveries[1]!, ...progress(deliveries[1]!, 2) })
    expect(await store.findDelivery(nth("whd", 50))).toEqual({ ...deliveries[50]!, ...progress(deliveries[50]!, 1) })
    expect((await store.listPendingDeliveries()).length).toBe(97)
  })

  test("an attempt number already recorded (two nodes attempted the delivery) is skipped and the rest of the wave is recorded", async () => {
    const store = await open()
    await seedAccount(store)
    await store.insertEndpoint(endpoint("wh_1"))
    await store.insertEvent(event("evt_1"))
    await store.insertEventsAndDeliveries([], [delivery("whd_1", "evt_1", "wh_1"), delivery("whd_2", "evt_1", "wh_1")])
    const first: AttemptRow = { deliveryId: "whd_1", attemptNumber: 1, attemptedAtMs: T0, statusCode: 200, error: null, latencyMs: 5, responseBody: "first" }
    await store.recordAttempts([first], [])
    const late: AttemptRow = { ...first, attemptedAtMs: T0 + 1, responseBody: "second" }
    const other: AttemptRow = { ...first, deliveryId: "whd_2" }
    const done: DeliveryProgress = { id: "whd_2", status: "succeeded", attemptCount: 1, firstAttemptAtMs: T0, nextAttemptAtMs: null, lastStatusCode: 200, lastError: null, updatedAtMs: T0 + 2 }
    await store.write(async (q) => q.recordAttempts([late, other], [done]))
    expect(await store.listAttempts("whd_1")).toEqual([first])
    expect(await store.listAttempts("whd_2")).toEqual([other])
    expect((await store.findDelivery("whd_2"))!.status).toBe("succeeded")
  })

  test("pruneEvents deletes at most `limit` events before the cutoff, oldest first, never one with a pending delivery, with their deliveries and attempts", async () => {
    const store = await open()
    await seedAccount(store)
    await store.insertEndpoint(endpoint("wh_1"))
    const events = Array.from({ length: 6 }, (_, i) => event(nth("evt", i), { occurredAtMs: T0 + i }))
    // evt_00002 still has a pending delivery; evt_00005 is at the cutoff, so not before it.
    const deliveries = events.map((e, i) => delivery(nth("whd", i), e.id, "wh_1", { status: i === 2 ? "pending" : "succeeded" }))
    await store.insertEventsAndDeliveries(events, deliveries)
    await store.insertAttempt({ deliveryId: nth("whd", 0), attemptNumber: 1, attemptedAtMs: T0, statusCode: 200, error: null, latencyMs: 5, responseBody: "ok" })

    expect(await store.pruneEvents(T0 + 5, 2)).toBe(2)
    const left = async () => (await Promise.all(events.map((e) => store.findEvent(e.id)))).map((e) => e !== null)
    expect(await left()).toEqual([false, false, true, true, true, true])
    expect(await store.findDelivery(nth("whd", 0))).toBeNull()
    expect(await store.listAttempts(nth("whd", 0))).toEqual([])
    expect(await store.pruneEvents(T0 + 5, 2)).toBe(2)
    expect(await left()).toEqual([false, false, true, false, false, true])
    expect(await store.pruneEvents(T0 + 5, 2)).toBe(0)
    expect(await store.findDelivery(nth("whd", 2))).not.toBeNull()
  })
})
