import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { Value } from "@sinclair/typebox/value"
import { EVENT_CATALOGUE } from "../../src/domain/event-catalogue"
import { emitGroupEvents, recordGroupEvents, type GroupEventInput } from "../../src/domain/group-events"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import { createHarness, type Harness } from "../helpers/harness"
import { eventsOf } from "../live/live-helpers"

/*
 * The group events' emitter (src/domain/group-events.ts): what the groups API's sandbox and live
 * actions and the live phone's group notifications call. Each change becomes one event whose data
 * matches the catalogue, in the caller's transaction; a change that says nothing emits nothing.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const GROUP = "120363000000000001@g.us"

async function tenantWithEndpoint(env: "test" | "live") {
  const tenant = await h.seedTenant({ env })
  await createEndpoint(h.services.ctx, { accountId: tenant.account.id, env, url: "http://127.0.0.1:9/unused", events: ["*"] })
  return tenant
}

function input(accountId: string, phoneId: string, change: GroupEventInput["change"], by: string | null = "+14155550123"): GroupEventInput {
  return { accountId, env: "test", phoneId, groupId: GROUP, by, atMs: h.clock.nowMs(), change }
}

describe("group events", () => {
  test("joined, participants and updated are recorded with the catalogue's shapes and the given author", async () => {
    const { account, phone } = await tenantWithEndpoint("test")
    await emitGroupEvents(h.services.ctx, [
      input(account.id, phone.id, { kind: "joined", subject: "Weekend football" }, "+14155550199"),
      input(account.id, phone.id, { kind: "participants", action: "added", participants: ["+14155550188", "123456789012@lid"] }),
      input(account.id, phone.id, { kind: "updated", changes: { subject: "Sunday football", announce: true, memberAddMode: "admins", ephemeralSeconds: 604800 } }, null),
    ])
    const events = eventsOf(h)
    expect(events.map((e) => e.event)).toEqual(["group.joined", "group.participants", "group.updated"])
    for (const e of events) expect([...Value.Errors(EVENT_CATALOGUE[e.event as keyof typeof EVENT_CATALOGUE].data, e.data)]).toEqual([])
    expect(events[0]!.data).toEqual({ phoneId: phone.id, groupId: GROUP, subject: "Weekend football", by: "+14155550199", at: new Date(h.clock.nowMs()).toISOString() })
    expect(events[1]!.data.participants).toEqual(["+14155550188", "123456789012@lid"])
    expect(events[2]!.data.by).toBeNull()
    expect(events[2]!.data.changes).toEqual({ subject: "Sunday football", announce: true, memberAddMode: "admins", ephemeralSeconds: 604800 })
  })

  test("a change with no participant or no setting emits nothing", async () => {
    const { account, phone } = await tenantWithEndpoint("test")
    await emitGroupEvents(h.services.ctx, [
      input(account.id, phone.id, { kind: "participants", action: "removed", participants: [] }),
      input(account.id, phone.id, { kind: "updated", changes: {} }),
    ])
    expect(eventsOf(h)).toEqual([])
  })

  test("events recorded in a transaction that fails are not kept", async () => {
    const { account, phone } = await tenantWithEndpoint("test")
    const failing = h.services.ctx.store.write(async (q, tx) => {
      await recordGroupEvents(h.services.ctx, q, tx, [input(account.id, phone.id, { kind: "updated", changes: { locked: true } })])
      throw new Error("the group change failed")
    })
    await expect(failing).rejects.toThrow("the group change failed")
    expect(eventsOf(h)).toEqual([])
  })
})
