import { afterEach, expect, setDefaultTimeout, test } from "bun:test"
import type { Principal } from "../../src/domain/api-keys"
import { createEventStreams, STREAM_RESCAN_MS, type EventStreams } from "../../src/domain/event-streams"
import type { EventType } from "../../src/lib/vocabulary"
import type { Store } from "../../src/store/store"
import { createEventWake, listenForEvents } from "../../src/webhooks/event-wake"
import { createHarness, type Harness } from "../helpers/harness"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"
import { emit } from "./stream-helpers"

/*
 * The log reads a node's streams share (src/domain/event-tail.ts): the streams of an account at
 * the head of its log cost one read per wake-up together, and a stream behind them reads on its
 * own until it has caught up. The store is wrapped to count the reads of the log.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

let h: Harness | undefined
let streams: EventStreams | undefined
let unlisten: (() => Promise<void>) | undefined
afterEach(async () => {
  streams?.closeAll()
  await unlisten?.()
  await h?.close()
  h = streams = unlisten = undefined
})

/** A stream's frames as they arrive: the event ids, in order. */
function collect(body: ReadableStream<Uint8Array>): { ids: string[] } {
  const seen = { ids: [] as string[] }
  let text = ""
  const decoder = new TextDecoder()
  void (async () => {
    for await (const chunk of body) {
      text += decoder.decode(chunk, { stream: true })
      for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
        const id = /^id: (\S+)$/m.exec(text.slice(0, end))?.[1]
        if (id) seen.ids.push(id)
        text = text.slice(end + 2)
      }
    }
  })()
  return seen
}

async function setUp() {
  h = await createHarness()
  const { account } = await h.seedTenant()
  const real = h.services.ctx.store
  const reads: string[] = []
  const store: Store = { ...real, listEventsAfter: (accountId, env, position, limit) => (reads.push(position), real.listEventsAfter(accountId, env, position, limit)) }
  const wake = createEventWake()
  unlisten = await listenForEvents(real, wake)
  streams = createEventStreams({ ctx: { ...h.services.ctx, store }, wake, perKey: 1_000 })
  let n = 0
  const principal = (): Principal => ({ keyId: `key_${n++}`, accountId: account.id, env: "test", scopes: ["events:read"], account })
  const open = async (after: string | null = null) => collect(await streams!.open(principal(), { types: null, after }))
  const commit = (count: number) => emit(h!, account.id, Array.from({ length: count }, (): EventType => "message.received"))
  return { reads, open, commit }
}

test("20 streams at the head of one account read the log once per commit and once per rescan, not once each", async () => {
  const { reads, open, commit } = await setUp()
  const opened = await Promise.all(Array.from({ length: 20 }, () => open()))
  await h!.settle()
  reads.length = 0
  await commit(3)
  await waitUntil(() => opened.every((s) => s.ids.length === 3), 10_000, "every stream receiving the commit")
  expect(reads).toHaveLength(1)
  expect(new Set(opened.map((s) => s.ids.join())).size).toBe(1)
  reads.length = 0
  await h!.advance(STREAM_RESCAN_MS)
  await h!.settle()
  expect(reads).toHaveLength(1)
})

test("a stream resuming far behind reads its replay on its own, then shares the head's reads with the others, with no gap and no repeat", async () => {
  const { reads, open, commit } = await setUp()
  const head = await Promise.all(Array.from({ length: 5 }, () => open()))
  await h!.settle()
  await commit(450)
  await waitUntil(() => head.every((s) => s.ids.length === 450), 10_000, "the head streams receiving the commit")
  reads.length = 0
  const lagging = await open(head[0]!.ids[0]!)
  await waitUntil(() => lagging.ids.length === 449, 10_000, "the lagging stream's replay")
  // Pages of 200 after positions none of the head streams stands at: its own reads.
  expect(reads).toHaveLength(3)
  reads.length = 0
  await commit(1)
  await waitUntil(() => [...head, lagging].every((s) => s.ids.length === (s === lagging ? 450 : 451)), 10_000, "every stream receiving the new event")
  expect(reads).toHaveLength(1)
  expect(lagging.ids).toEqual(head[0]!.ids.slice(1))
  expect(new Set(lagging.ids).size).toBe(450)
})

test("the events signal rings its account's streams only, and a renewed listening connection rings every stream", async () => {
  let signal: (payload: string) => void = () => {}
  let resubscribed: () => void = () => {}
  const store = {
    listen: async (_channel: string, onSignal: (payload: string) => void, onResubscribed?: () => void) => {
      signal = onSignal
      resubscribed = onResubscribed ?? (() => {})
      return async () => {}
    },
  }
  const wake = createEventWake()
  await listenForEvents(store, wake)
  const rung: string[] = []
  wake.listen("acc_1", "test", () => rung.push("acc_1|test"))
  wake.listen("acc_1", "live", () => rung.push("acc_1|live"))
  wake.listen("acc_2", "test", () => rung.push("acc_2|test"))
  signal("acc_1|test")
  expect(rung).toEqual(["acc_1|test"])
  rung.length = 0
  resubscribed()
  expect(rung.sort()).toEqual(["acc_1|live", "acc_1|test", "acc_2|test"])
})
