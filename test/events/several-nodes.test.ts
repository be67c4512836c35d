import { afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { createHarness, type Harness } from "../helpers/harness"
import { openStream, type SseFrame, type StreamClient } from "../helpers/event-stream-client"
import { testPostgres } from "../helpers/postgres"
import { TestClock } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"
import { freshMigratedDatabase } from "../store/contract/stores"
import { bearer, emit } from "./stream-helpers"

/*
 * Two nodes in one process on one PostgreSQL database (docs/webhooks.md § "Streams"): a stream
 * on one node receives the events the other commits, woken by the database's notification. Both
 * nodes read one test clock that the tests never move, so the streams' rescan timer never fires:
 * whatever a stream receives after its start, a notification woke it for.
 */

setDefaultTimeout(2 * SLOW_TEST_TIMEOUT_MS)

const nodes: Harness[] = []
const streams: StreamClient[] = []
beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(async () => {
  for (const s of streams.splice(0)) await s.close()
  for (const h of nodes.splice(0).reverse()) {
    await h.app.stop(true)
    await h.close()
  }
}, SLOW_HOOK_TIMEOUT_MS)

async function twoNodes() {
  const url = await freshMigratedDatabase()
  const clock = new TestClock()
  const start = async (nodeId: string) => {
    const h = await createHarness({ clock, env: { WAGATE_DATABASE_URL: url, WAGATE_NODE_ID: nodeId } })
    h.app.listen({ port: 0, hostname: "127.0.0.1" })
    nodes.push(h)
    return { h, base: `http://127.0.0.1:${h.app.server!.port}` }
  }
  const a = await start("na")
  const b = await start("nb")
  const { account } = await a.h.seedTenant()
  const key = await a.h.seedKey(account.id, { scopes: ["events:read"] })
  /** Opens a stream on `node` and waits until node A knows the account has one, as it must to keep its events. */
  const open = async (node: { h: Harness; base: string }, headers: Record<string, string> = {}) => {
    const before = a.h.services.ctx.store.changeVersion()
    const s = await openStream(node.base, "/v1/events", { ...bearer(key), ...headers })
    streams.push(s)
    expect(s.status).toBe(200)
    expect(await s.next()).toEqual({ comment: "connected" })
    if (node !== a) await waitUntil(() => a.h.services.ctx.store.changeVersion() !== before, 10_000, "node A hearing of the stream")
    return s
  }
  return { a, b, accountId: account.id, open }
}

/** Every frame until the stream ends, comments left out. */
async function untilEnd(s: StreamClient): Promise<SseFrame[]> {
  const frames: SseFrame[] = []
  for (let f = await s.next(); f !== null; f = await s.next()) if (f.comment === undefined) frames.push(f)
  return frames
}

test("a stream on node B receives, in order, the events node A commits, woken by the database without a rescan", async () => {
  const { a, b, accountId, open } = await twoNodes()
  const stream = await open(b)
  await emit(a.h, accountId, ["message.received", "message.reaction"])
  await emit(a.h, accountId, ["group.updated"])
  await emit(b.h, accountId, ["call.received"])
  await emit(a.h, accountId, ["message.edited"])
  const frames = await stream.events(5)
  expect(frames.map((f) => f.event)).toEqual(["message.received", "message.reaction", "group.updated", "call.received", "message.edited"])
  expect(b.h.clock.nowMs()).toBe(a.h.clock.nowMs())
})

test("when node B stops, its streams end, and the client resumes on node A with Last-Event-ID and gets exactly the rest", async () => {
  const { a, b, accountId, open } = await twoNodes()
  const onB = await open(b)
  await emit(a.h, accountId, ["message.received", "message.reaction"])
  const seen = await onB.events(2)
  await emit(a.h, accountId, ["message.edited"])
  await b.h.close()
  // Whatever reached the client before B's streams ended; the rest must come from A.
  const fromB = [...seen, ...(await untilEnd(onB))]
  await emit(a.h, accountId, ["message.revoked", "call.received"])
  const onA = await open(a, { "last-event-id": fromB.at(-1)!.id! })
  const rest = await onA.events(5 - fromB.length)
  const all = [...fromB, ...rest]
  expect(all.map((f) => f.event)).toEqual(["message.received", "message.reaction", "message.edited", "message.revoked", "call.received"])
  expect(new Set(all.map((f) => f.id)).size).toBe(5)
  await emit(a.h, accountId, ["group.updated"])
  expect((await onA.events(1))[0]!.event).toBe("group.updated")
})
