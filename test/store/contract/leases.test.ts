import { SQL } from "bun"
import { expect, setDefaultTimeout, test } from "bun:test"
import { FORGET_NODE_AFTER_MS, LeaseLostError, NodeIdInUseError, type NodeIdentity } from "../../../src/store/leases"
import { pgLeaseQueries } from "../../../src/store/postgres/leases"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { describeLeaseStores } from "./lease-stores"

/* Nodes and phone leases (LeaseQueries, src/store/leases.ts) on both stores. */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS
const LEASE_MS = 15_000
const A: NodeIdentity = { nodeId: "node-a", instanceId: "inst-a1" }
const B: NodeIdentity = { nodeId: "node-b", instanceId: "inst-b1" }
const reg = (node: NodeIdentity, nowMs: number, maxPhones = 1000) => ({ ...node, maxPhones, nowMs, leaseMs: LEASE_MS })
const ids = (leases: readonly { phoneId: string }[]) => leases.map((l) => l.phoneId)

describeLeaseStores("leases: nodes", (world) => {
  test("a second process with the same node id is refused while the first heartbeats, and accepted once it is stale", async () => {
    const w = await world()
    const store = await w.node()
    await store.registerNode(reg(A, T))
    const twin = { nodeId: A.nodeId, instanceId: "inst-a2" }
    const refused = await store.registerNode(reg(twin, T + 4_000)).catch((err) => err)
    expect(refused).toBeInstanceOf(NodeIdInUseError)
    expect(refused.message).toContain('WAGATE_NODE_ID "node-a"')
    expect(refused.message).toContain("4 s ago")
    // The first one heartbeats: still refused a lease length after its start.
    await store.renewLeases(A, T + 10_000, LEASE_MS)
    await expect(store.registerNode(reg(twin, T + 20_000))).rejects.toBeInstanceOf(NodeIdInUseError)
    // Silent for a whole lease: the id is free again, and the old instance is no longer registered.
    await store.registerNode(reg(twin, T + 25_000))
    expect(await store.renewLeases(A, T + 25_001, LEASE_MS)).toEqual({ registered: false, held: [] })
    expect((await store.listNodes(T + 25_001)).map((n) => [n.nodeId, n.instanceId])).toEqual([["node-a", "inst-a2"]])
  })

  test("a node that released (a rolling restart) lets the next process of its id start at once; the same process may register again", async () => {
    const w = await world()
    const store = await w.node()
    await store.registerNode(reg(A, T))
    await store.registerNode(reg(A, T + 1_000))
    await store.releaseNode(A, T + 2_000)
    expect((await store.listNodes(T + 2_000))[0]).toMatchObject({ nodeId: "node-a", stopping: true })
    await store.registerNode(reg({ nodeId: A.nodeId, instanceId: "inst-a2" }, T + 2_001))
    expect((await store.listNodes(T + 2_001))[0]).toMatchObject({ instanceId: "inst-a2", stopping: false, startedAtMs: T + 2_001 })
  })

  test("a new process of a node id does not inherit the old one's leases: it claims them again with new tokens", async () => {
    const w = await world()
    await w.seedPhones(3)
    const store = await w.node()
    await store.registerNode(reg(A, T))
    const first = await store.claimPhones(A, 10, T, LEASE_MS)
    expect(first.map((l) => l.token)).toEqual([1, 1, 1])
    const next = { nodeId: A.nodeId, instanceId: "inst-a2" }
    await store.registerNode(reg(next, T + 20_000))
    expect(await store.renewLeases(next, T + 20_001, LEASE_MS)).toEqual({ registered: true, held: [] })
    await expect(store.assertLease(first[0]!.phoneId, A.nodeId, 1, T + 20_001)).rejects.toBeInstanceOf(LeaseLostError)
    const again = await store.claimPhones(next, 10, T + 20_002, LEASE_MS)
    expect(again.map((l) => l.token)).toEqual([2, 2, 2])
  })

  test("a node silent for a day is forgotten when another node registers; one silent for less is still listed", async () => {
    const w = await world()
    const store = await w.node()
    await store.registerNode(reg(A, T))
    await store.registerNode(reg(B, T + 60_000))
    await store.registerNode(reg({ nodeId: "node-c", instanceId: "c1" }, T + FORGET_NODE_AFTER_MS))
    expect((await store.listNodes(T + FORGET_NODE_AFTER_MS)).map((n) => n.nodeId)).toEqual(["node-b", "node-c"])
    // Registering again under a silent node's own id keeps (and revives) that row.
    await store.registerNode(reg(B, T + 60_000 + FORGET_NODE_AFTER_MS * 2))
    expect((await store.listNodes(T + 60_000 + FORGET_NODE_AFTER_MS * 2)).map((n) => n.nodeId)).toEqual(["node-b"])
  })

  test("a node's URL for forwarded requests is stored with its registration, replaced by its next process and read by node id", async () => {
    const w = await world()
    const store = await w.node()
    await store.registerNode({ ...reg(A, T), url: "http://10.0.0.1:3000" })
    await store.registerNode(reg(B, T))
    expect(await store.nodeUrl("node-a")).toBe("http://10.0.0.1:3000")
    expect(await store.nodeUrl("node-b")).toBeNull()
    expect(await store.nodeUrl("node-z")).toBeNull()
    expect((await store.listNodes(T)).map((n) => [n.nodeId, n.url])).toEqual([["node-a", "http://10.0.0.1:3000"], ["node-b", null]])
    // The next process of node-a starts without a URL: the old one is not kept.
    await store.releaseNode(A, T + 1_000)
    await store.registerNode(reg({ nodeId: A.nodeId, instanceId: "inst-a2" }, T + 1_001))
    expect(await store.nodeUrl("node-a")).toBeNull()
  })

  test("listNodes counts each node's unexpired leases with their ages; countUnownedPhones counts the rest", async () => {
    const w = await world()
    await w.seedPhones(5)
    const store = await w.node()
    await store.registerNode(reg(A, T, 40))
    await store.registerNode(reg(B, T))
    await store.claimPhones(A, 2, T, LEASE_MS)
    await store.claimPhones(A, 1, T + 1_000, LEASE_MS)
    await store.claimPhones(B, 1, T + 2_000, LEASE_MS)
    expect(await store.countUnownedPhones(T + 2_000)).toBe(1)
    expect(await store.listNodes(T + 2_000)).toEqual([
      { nodeId: "node-a", instanceId: "inst-a1", startedAtMs: T, heartbeatAtMs: T, maxPhones: 40, stopping: false, url: null, phones: 3, oldestLeaseAcquiredAtMs: T, newestLeaseAcquiredAtMs: T + 1_000 },
      { nodeId: "node-b", instanceId: "inst-b1", startedAtMs: T, heartbeatAtMs: T, maxPhones: 1000, stopping: false, url: null, phones: 1, oldestLeaseAcquiredAtMs: T + 2_000, newestLeaseAcquiredAtMs: T + 2_000 },
    ])
    // A's first two leases have run out by T + 15 s: they no longer count, and are unowned.
    const later = await store.listNodes(T + LEASE_MS)
    expect(later.map((n) => [n.nodeId, n.phones, n.oldestLeaseAcquiredAtMs])).toEqual([["node-a", 1, T + 1_000], ["node-b", 1, T + 2_000]])
    expect(await store.countUnownedPhones(T + LEASE_MS)).toBe(3)
  })
})

describeLeaseStores("leases: the census", (world) => {
  test("leaseCensus gives what listNodes and countUnownedPhones give, and no nodes with every phone unowned on a fresh database", async () => {
    const w = await world()
    await w.seedPhones(4)
    const store = await w.node()
    expect(await store.leaseCensus(T)).toEqual({ nodes: [], unowned: 4 })
    await store.registerNode(reg(A, T))
    await store.registerNode(reg(B, T))
    await store.claimPhones(A, 1, T, LEASE_MS)
    expect(await store.leaseCensus(T + 1_000)).toEqual({ nodes: await store.listNodes(T + 1_000), unowned: 3 })
  })

  test("while other nodes claim, every census adds up to all the phones (one snapshot, not two reads)", async () => {
    const w = await world()
    await w.seedPhones(120)
    const [a, b, watcher] = [await w.node(), await w.node(), await w.node()]
    await a.registerNode(reg(A, T))
    await b.registerNode(reg(B, T))
    const claiming = (async () => {
      for (let round = 0; round < 60; round++) await Promise.all([a.claimPhones(A, 1, T, LEASE_MS), b.claimPhones(B, 1, T, LEASE_MS)])
    })()
    const totals: number[] = []
    let done = false
    void claiming.finally(() => (done = true))
    while (!done) {
      const census = await watcher.leaseCensus(T)
      totals.push(census.unowned + census.nodes.reduce((sum, n) => sum + n.phones, 0))
    }
    await claiming
    expect(totals.length).toBeGreaterThan(0)
    expect(totals.filter((t) => t !== 120)).toEqual([])
  })
})

describeLeaseStores("leases: claims, renewals and fencing", (world, kind) => {
  test("claims take unowned phones up to the limit, and a phone a live lease holds is never claimed again", async () => {
    const w = await world()
    const phones = await w.seedPhones(5)
    const store = await w.node()
    await store.registerNode(reg(A, T))
    await store.registerNode(reg(B, T))
    expect(ids(await store.claimPhones(A, 3, T, LEASE_MS))).toEqual(phones.slice(0, 3))
    expect(ids(await store.claimPhones(B, 10, T + 1, LEASE_MS))).toEqual(phones.slice(3))
    expect(await store.claimPhones(B, 10, T + 2, LEASE_MS)).toEqual([])
    expect(await store.claimPhones(A, 0, T + 3, LEASE_MS)).toEqual([])
    // An unregistered or released instance claims nothing.
    expect(await store.claimPhones({ nodeId: "node-c", instanceId: "x" }, 10, T + 60_000, LEASE_MS)).toEqual([])
  })

  test("claiming one phone takes it only while nobody holds it, with its token bumped", async () => {
    const w = await world()
    const [phone] = await w.seedPhones(1)
    const store = await w.node()
    await store.registerNode(reg(A, T))
    await store.registerNode(reg(B, T))
    expect(await store.claimPhone(A, phone!, T, LEASE_MS)).toEqual({ phoneId: phone!, token: 1, expiresAtMs: T + LEASE_MS })
    // Held by A: B cannot take it, not even A again.
    expect(await store.claimPhone(B, phone!, T + 1, LEASE_MS)).toBeNull()
    expect(await store.claimPhone(A, phone!, T + 1, LEASE_MS)).toBeNull()
    // Once A's lease ran out, B takes it with the next token.
    expect(await store.claimPhone(B, phone!, T + LEASE_MS, LEASE_MS)).toEqual({ phoneId: phone!, token: 2, expiresAtMs: T + 2 * LEASE_MS })
    // An unregistered instance, or a phone that does not exist, claims nothing.
    expect(await store.claimPhone({ nodeId: "node-c", instanceId: "x" }, phone!, T + 10 * LEASE_MS, LEASE_MS)).toBeNull()
    expect(await store.claimPhone(A, "ph_missing", T + 10 * LEASE_MS, LEASE_MS)).toBeNull()
  })

  test("two nodes claiming the same free phone at once: exactly one gets it", async () => {
    const w = await world()
    const phones = await w.seedPhones(20)
    const [a, b] = [await w.node(), await w.node()]
    await a.registerNode(reg(A, T))
    await b.registerNode(reg(B, T))
    for (const phone of phones) {
      const [byA, byB] = await Promise.all([a.claimPhone(A, phone, T, LEASE_MS), b.claimPhone(B, phone, T, LEASE_MS)])
      expect([byA, byB].filter((l) => l !== null).length).toBe(1)
    }
  })

  test("renewal moves every held lease's expiry in one call and returns them", async () => {
    const w = await world()
    await w.seedPhones(3)
    const store = await w.node()
    await store.registerNode(reg(A, T))
    const claimed = await store.claimPhones(A, 3, T, LEASE_MS)
    expect(claimed.every((l) => l.expiresAtMs === T + LEASE_MS)).toBe(true)
    const renewed = await store.renewLeases(A, T + 5_000, LEASE_MS)
    expect(renewed).toEqual({ registered: true, held: claimed.map((l) => ({ ...l, expiresAtMs: T + 5_000 + LEASE_MS })) })
    expect((await store.listNodes(T + 5_000))[0]!.heartbeatAtMs).toBe(T + 5_000)
    // Held past the first expiry because it was renewed.
    await store.assertLease(claimed[0]!.phoneId, A.nodeId, 1, T + LEASE_MS + 1_000)
  })

  test("the token strictly increases each time the phone changes hands", async () => {
    const w = await world()
    const [phone] = await w.seedPhones(1)
    const store = await w.node()
    await store.registerNode(reg(A, T))
    await store.registerNode(reg(B, T))
    const tokens: number[] = []
    tokens.push((await store.claimPhones(A, 1, T, LEASE_MS))[0]!.token)
    await store.releaseNode(A, T + 1_000)
    tokens.push((await store.claimPhones(B, 1, T + 1_000, LEASE_MS))[0]!.token)
    // B's lease runs out; A (started again) takes it over.
    await store.registerNode(reg(A, T + 20_000))
    tokens.push((await store.claimPhones(A, 1, T + 20_000, LEASE_MS))[0]!.token)
    // Expired and claimed again by the same node: a new token all the same.
    tokens.push((await store.claimPhones(A, 1, T + 40_000, LEASE_MS))[0]!.token)
    expect(tokens).toEqual([1, 2, 3, 4])
    expect(await store.listPhoneLeases()).toEqual([{ phoneId: phone!, nodeId: "node-a", token: 4, acquiredAtMs: T + 40_000, expiresAtMs: T + 40_000 + LEASE_MS }])
  })

  test("a paused node that wakes after its lease was taken over learns it lost the phone, and its old token is refused", async () => {
    const w = await world()
    const [phone] = await w.seedPhones(1)
    const paused = await w.node()
    const other = await w.node()
    await paused.registerNode(reg(A, T))
    await other.registerNode(reg(B, T))
    const [lease] = await paused.claimPhones(A, 1, T, LEASE_MS)
    await paused.assertLease(phone!, A.nodeId, lease!.token, T + 1_000)
    // A stops renewing (SIGSTOP); B keeps heartbeating and takes the phone once the lease ran out.
    await other.renewLeases(B, T + 10_000, LEASE_MS)
    expect(await other.claimPhones(B, 1, T + 10_000, LEASE_MS)).toEqual([])
    const [taken] = await other.claimPhones(B, 1, T + LEASE_MS, LEASE_MS)
    expect(taken!.token).toBe(lease!.token + 1)
    // A wakes up (SIGCONT): its renewal renews nothing, and every write with its token is refused.
    expect(await paused.renewLeases(A, T + 16_000, LEASE_MS)).toEqual({ registered: true, held: [] })
    const refused = await paused.assertLease(phone!, A.nodeId, lease!.token, T + 16_000).catch((err) => err)
    expect(refused).toBeInstanceOf(LeaseLostError)
    expect(refused).toMatchObject({ phoneId: phone, nodeId: "node-a", token: lease!.token })
    await other.assertLease(phone!, B.nodeId, taken!.token, T + 16_000)
    // Nor does a token pass for another node, or a lease past its expiry.
    await expect(other.assertLease(phone!, A.nodeId, taken!.token, T + 16_000)).rejects.toBeInstanceOf(LeaseLostError)
    await expect(other.assertLease(phone!, B.nodeId, taken!.token, T + LEASE_MS + LEASE_MS)).rejects.toBeInstanceOf(LeaseLostError)
  })

  test("an expired lease is not renewed even when nobody took it: the owner must claim it again with a new token", async () => {
    const w = await world()
    await w.seedPhones(1)
    const store = await w.node()
    await store.registerNode(reg(A, T))
    await store.claimPhones(A, 1, T, LEASE_MS)
    expect((await store.renewLeases(A, T + LEASE_MS, LEASE_MS)).held).toEqual([])
    expect((await store.claimPhones(A, 1, T + LEASE_MS, LEASE_MS))[0]!.token).toBe(2)
  })

  test("release frees every lease of the node at once, for any node to claim without waiting for expiry", async () => {
    const w = await world()
    const phones = await w.seedPhones(4)
    const store = await w.node()
    await store.registerNode(reg(A, T))
    await store.registerNode(reg(B, T))
    await store.claimPhones(A, 4, T, LEASE_MS)
    expect(await store.releaseNode(A, T + 1_000)).toBe(4)
    expect(await store.countUnownedPhones(T + 1_000)).toBe(4)
    expect(ids(await store.claimPhones(B, 10, T + 1_000, LEASE_MS))).toEqual(phones)
    // The released node renews and claims nothing any more.
    expect(await store.renewLeases(A, T + 1_001, LEASE_MS)).toEqual({ registered: false, held: [] })
    expect(await store.releaseNode(A, T + 1_002)).toBe(0)
  })

  test("a deleted phone takes its lease with it", async () => {
    const w = await world()
    const phones = await w.seedPhones(2)
    const store = await w.node()
    await store.registerNode(reg(A, T))
    await store.claimPhones(A, 2, T, LEASE_MS)
    await w.deletePhone(phones[0]!)
    expect(ids(await store.listPhoneLeases())).toEqual([phones[1]!])
    expect(ids((await store.renewLeases(A, T + 1_000, LEASE_MS)).held)).toEqual([phones[1]!])
  })

  test("two nodes claiming 200 phones at the same time never get the same phone", async () => {
    const w = await world()
    const phones = await w.seedPhones(200)
    const [a, b] = [await w.node(), await w.node()]
    await a.registerNode(reg(A, T))
    await b.registerNode(reg(B, T))
    const got: Record<string, string[]> = { a: [], b: [] }
    // Both claim in batches of 25 until nothing is left, concurrently (two pools on PostgreSQL).
    const drain = async (name: "a" | "b", store: typeof a, node: NodeIdentity) => {
      for (let round = 0; round < 50; round++) {
        const claimed = await store.claimPhones(node, 25, T + round, LEASE_MS)
        if (claimed.length === 0 && (await store.countUnownedPhones(T + round)) === 0) return
        got[name]!.push(...ids(claimed))
      }
    }
    await Promise.all([drain("a", a, A), drain("b", b, B)])
    const all = [...got.a!, ...got.b!]
    expect(all.length).toBe(200)
    expect(new Set(all).size).toBe(200)
    expect([...all].sort()).toEqual(phones)
    const leases = await a.listPhoneLeases()
    expect(leases.every((l) => l.token === 1)).toBe(true)
    expect(leases.filter((l) => l.nodeId === "node-a").length).toBe(got.a!.length)
    if (kind === "postgres") {
      // Both got a share: SKIP LOCKED let them work side by side instead of one waiting for the other.
      expect(got.a!.length).toBeGreaterThan(0)
      expect(got.b!.length).toBeGreaterThan(0)
    }
  })
})

describeLeaseStores("leases: PostgreSQL specifics", (world, kind) => {
  if (kind !== "postgres") return

  test("a phone whose owner is inside a write that passed the fencing check cannot be claimed until that write commits", async () => {
    const w = await world()
    const [phone] = await w.seedPhones(1)
    const owner = await w.node()
    const taker = await w.node()
    await owner.registerNode(reg(A, T))
    await taker.registerNode(reg(B, T))
    const [lease] = await owner.claimPhones(A, 1, T, LEASE_MS)
    const pool = new SQL(w.url!, { max: 1 })
    let finishWrite!: () => void
    const writeMayFinish = new Promise<void>((resolve) => (finishWrite = resolve))
    let checked!: () => void
    const passedCheck = new Promise<void>((resolve) => (checked = resolve))
    const write = pool.begin(async (tx) => {
      await pgLeaseQueries(tx).assertLease(phone!, A.nodeId, lease!.token, T + 14_000)
      checked()
      await writeMayFinish
    })
    try {
      await passedCheck
      // By the taker's clock the lease has run out, but the owner's write holds the row: skipped.
      expect(await taker.claimPhones(B, 1, T + 20_000, LEASE_MS)).toEqual([])
      finishWrite()
      await write
      expect(await taker.claimPhones(B, 1, T + 20_001, LEASE_MS)).toEqual([{ phoneId: phone!, token: lease!.token + 1, expiresAtMs: T + 20_001 + LEASE_MS }])
    } finally {
      finishWrite()
      await write.catch(() => {})
      await pool.close()
    }
  })

  test("a heartbeat renews every lease of the node in one statement", async () => {
    const w = await world()
    await w.seedPhones(50)
    const store = await w.node()
    await store.registerNode(reg(A, T))
    await store.claimPhones(A, 50, T, LEASE_MS)
    const sql = new SQL(w.url!, { max: 1 })
    try {
      let statements = 0
      const counting = { unsafe: (text: string, params: unknown[]) => (statements++, sql.unsafe(text, params)) } as unknown as SQL
      const renewed = await pgLeaseQueries(counting).renewLeases(A, T + 5_000, LEASE_MS)
      expect(renewed.held.length).toBe(50)
      expect(statements).toBe(1)
    } finally {
      await sql.close()
    }
  })
})
