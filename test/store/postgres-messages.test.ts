import { SQL } from "bun"
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { bornSent } from "../../src/domain/message-status"
import { SELECT_UNREAD_IN_CHAT, SET_READ } from "../../src/store/postgres/message-actions"
import { SELECT_NEXT_SANDBOX_DUE, SELECT_SANDBOX_DUE } from "../../src/store/postgres/messages"
import { REPLIES } from "../../src/store/postgres/replies"
import { TEST_EPOCH_MS } from "../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { newMessage, seedMessage } from "./contract/message-fixtures"
import { openPostgresStore } from "../../src/store/postgres/store"
import { freshMigratedDatabase, openPostgresContractStore, type ContractStore } from "./contract/stores"

/*
 * What only PostgreSQL has to guarantee about the message groups, because only there several
 * nodes write at once: the sandbox sweep claims its rows, a status batch counts from the status a
 * row really has, and the statements seek the partial indexes SQLite's do.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

async function openStore(): Promise<ContractStore> {
  const opened = await openPostgresContractStore()
  cleanups.push(opened.cleanup)
  return opened.store
}

/** A store and a connection of its own to the same database, to watch the store's sessions. */
async function openWatchedStore(): Promise<{ store: ContractStore; watch: SQL }> {
  const url = await freshMigratedDatabase()
  const store = await openPostgresStore(url, { maxConnections: 4 })
  const watch = new SQL(url, { max: 1 })
  cleanups.push(async () => {
    await watch.close()
    await store.close()
  })
  return { store, watch }
}

/** Resolves once `n` callers have arrived: lets concurrent transactions all read before any writes. */
function barrier(n: number): () => Promise<void> {
  let arrived = 0
  let open!: () => void
  const all = new Promise<void>((r) => (open = r))
  return () => {
    if (++arrived === n) open()
    return all
  }
}

describe("message groups on PostgreSQL under concurrency", () => {
  test("two sandbox sweeps at once claim disjoint due messages, and between them every one", async () => {
    const store = await openStore()
    const due = []
    for (let i = 0; i < 6; i++) due.push(await seedMessage(store, { sandboxDeliveredDueMs: T + 10 * i }))
    const bothListed = barrier(2)
    const sweep = () =>
      store.write(async (q) => {
        const rows = await q.listSandboxDueMessages(T + 1_000, 3)
        await bothListed()
        await q.updateMessageStatuses(
          rows.map((before) => ({ before, patch: { ...before, status: "delivered" as const, deliveredAtMs: before.sandboxDeliveredDueMs, sandboxDeliveredDueMs: null } })),
          T + 1_000,
        )
        return rows.map((r) => r.id)
      })
    const [a, b] = await Promise.all([sweep(), sweep()])
    expect(a!.filter((id) => b!.includes(id))).toEqual([])
    expect([...a!, ...b!].sort()).toEqual(due.map((m) => m.id).sort())
    expect(await store.countMessagesSince("acc_a", "test", T)).toMatchObject({ sent: 0, delivered: 6 })
  })

  test("concurrent status batches from stale reads move the counters from the status each row really has", async () => {
    const store = await openStore()
    const m = await seedMessage(store, { birth: bornSent(T) })
    const bothRead = barrier(2)
    const receipt = (status: "delivered" | "read", atMs: number) =>
      store.write(async (q) => {
        const before = (await q.findMessage(m.id))!
        await bothRead()
        const patch = { ...before, status, ...(status === "delivered" ? { deliveredAtMs: atMs } : { readAtMs: atMs }) }
        await q.updateMessageStatuses([{ before, patch }], atMs)
      })
    await Promise.all([receipt("delivered", T + 1), receipt("read", T + 2)])
    const final = (await store.findMessage(m.id))!
    const counts = await store.countMessagesSince("acc_a", "test", T)
    expect(counts).toEqual({ pending: 0, sent: 0, delivered: 0, read: 0, failed: 0, [final.status]: 1 })
    expect(await store.countMessages("acc_a", "test")).toBe(1)
  })

  test("an insert that loses the race for an idempotency key waits for the winner's commit, then throws IdempotencyKeyTaken", async () => {
    const { store, watch } = await openWatchedStore()
    const inserted = barrier(2)
    let release!: () => void
    const winnerMayCommit = new Promise<void>((r) => (release = r))
    const winner = store.write(async (q) => {
      const row = await q.insertMessage(newMessage({ idempotencyKey: "k" }))
      await inserted()
      await winnerMayCommit
      return row
    })
    const loser = store.write(async (q) => {
      await inserted()
      const attempt = q.insertMessage(newMessage({ idempotencyKey: "k" })).then(
        () => "inserted",
        (err: Error) => err.name,
      )
      // The loser's insert waits on the unique index for the winner's transaction to end.
      while ((await watch`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).length === 0) await Bun.sleep(5)
      release()
      return attempt
    })
    expect(await loser).toBe("IdempotencyKeyTaken")
    expect((await store.findMessageByIdempotencyKey("acc_a", "test", "k"))?.id).toBe((await winner).id)
  })
})

describe("message statements on PostgreSQL seek the indexes SQLite's do", () => {
  const statements: { name: string; text: string; args: unknown[]; index: string }[] = [
    { name: "the sandbox's due messages", text: SELECT_SANDBOX_DUE, args: [T, 100], index: "messages_sandbox_due" },
    { name: "the next sandbox due time", text: SELECT_NEXT_SANDBOX_DUE, args: [], index: "messages_sandbox_due" },
    { name: "a chat's unread messages", text: SELECT_UNREAD_IN_CHAT, args: ["ph_1", "+14155550166", 5, 10], index: "inbound_unread_chat" },
    { name: "a chat's read marks", text: SET_READ, args: ["ph_1", "+14155550166", 5, T], index: "inbound_unread_chat" },
    { name: "the replies to a message (ours)", text: REPLIES, args: ["msg_1", 10], index: "messages_reply_to" },
    { name: "the replies to a message (received)", text: REPLIES, args: ["msg_1", 10], index: "inbound_reply_to" },
  ]
  test.each(statements)("$name: $index", async ({ text, args, index }) => {
    const sql = new SQL(await freshMigratedDatabase(), { max: 1 })
    cleanups.push(() => sql.close())
    const conn = await sql.reserve()
    try {
      // Empty tables would make any plan cheap: with sequential scans priced out, the planner
      // takes an index if the statement's terms match one, and only then.
      await conn.unsafe("SET enable_seqscan = off")
      await conn.unsafe(`PREPARE s AS ${text}`)
      const literal = (v: unknown) => (typeof v === "string" ? `'${v}'` : String(v))
      const plan = (await conn.unsafe(`EXPLAIN EXECUTE s${args.length ? `(${args.map(literal).join(", ")})` : ""}`)) as { "QUERY PLAN": string }[]
      expect(plan.map((p) => p["QUERY PLAN"]).join("\n")).toContain(index)
    } finally {
      conn.release()
    }
  })
})
