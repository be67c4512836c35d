/*
 * Fencing of a phone's WhatsApp credentials and keys (docs/architecture.md § "Nodes and leases"):
 * every write carries the lease token the node held when the socket opened, and is refused once
 * another node holds the phone, so a node that was paused past its lease and wakes up can never
 * overwrite what the new owner wrote. Both stores, with the real migrations.
 */
import { expect, setDefaultTimeout, test } from "bun:test"
import * as baileys from "@whiskeysockets/baileys"
import { LeaseLostError, type NodeIdentity } from "../../src/store/leases"
import type { Store } from "../../src/store/store"
import { loadAuthState } from "../../src/whatsapp/baileys/auth-state"
import { describeLeaseStores } from "../store/contract/lease-stores"
import { TestClock } from "../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const LEASE_MS = 15_000
const A: NodeIdentity = { nodeId: "node-a", instanceId: "a1" }
const B: NodeIdentity = { nodeId: "node-b", instanceId: "b1" }

describeLeaseStores("fenced WhatsApp credentials and keys", (world) => {
  /** A phone whose lease node A holds with token 1, and A's auth state for it. */
  async function heldByA() {
    const w = await world()
    const [phoneId] = await w.seedPhones(1)
    const store = (await w.node()) as unknown as Store
    const clock = new TestClock()
    await store.registerNode({ ...A, maxPhones: 10, nowMs: clock.nowMs(), leaseMs: LEASE_MS })
    const lease = await store.claimPhone(A, phoneId!, clock.nowMs(), LEASE_MS)
    expect(lease?.token).toBe(1)
    let refusals = 0
    const auth = await loadAuthState(baileys, { store, clock, fence: { nodeId: A.nodeId, token: 1 }, onFenceRefused: () => refusals++ }, phoneId!)
    return { store, clock, phoneId: phoneId!, auth, refusals: () => refusals }
  }

  test("the holder's credential and key writes are stored", async () => {
    const { store, phoneId, auth, refusals } = await heldByA()
    await auth.saveCreds()
    await auth.state.keys.set({ "pre-key": { "1": baileys.Curve.generateKeyPair() } })
    expect(await store.readCreds(phoneId)).not.toBeNull()
    expect(await store.countKeys(phoneId)).toBe(1)
    expect(refusals()).toBe(0)
  })

  test("once another node took the phone over, the old holder's writes are refused, reported once, and nothing of it is stored", async () => {
    const { store, clock, phoneId, auth, refusals } = await heldByA()
    // A is paused past its lease; B claims the phone and writes its own credentials.
    clock.advance(LEASE_MS + 1)
    await store.registerNode({ ...B, maxPhones: 10, nowMs: clock.nowMs(), leaseMs: LEASE_MS })
    expect((await store.claimPhone(B, phoneId, clock.nowMs(), LEASE_MS))?.token).toBe(2)
    await store.write(async (q) => q.upsertCreds(phoneId, '{"written":"by B"}', clock.nowMs()))

    // A wakes up: its credential write is refused and B's row stays.
    await expect(auth.saveCreds()).rejects.toBeInstanceOf(LeaseLostError)
    expect(refusals()).toBe(1)
    expect(await store.readCreds(phoneId)).toBe('{"written":"by B"}')
    // Every later write of A is dropped without another refusal.
    await auth.state.keys.set({ "pre-key": { "1": baileys.Curve.generateKeyPair() } })
    await auth.saveCreds()
    expect(await store.countKeys(phoneId)).toBe(0)
    expect(refusals()).toBe(1)
    expect(await store.readCreds(phoneId)).toBe('{"written":"by B"}')
  })

  test("a write of a lease that merely expired, with nobody else holding the phone, is refused too", async () => {
    const { clock, auth, refusals } = await heldByA()
    clock.advance(LEASE_MS)
    await expect(auth.state.keys.set({ "pre-key": { "2": baileys.Curve.generateKeyPair() } })).rejects.toBeInstanceOf(LeaseLostError)
    expect(refusals()).toBe(1)
  })
})
