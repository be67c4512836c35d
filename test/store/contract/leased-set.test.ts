import { expect, setDefaultTimeout, test } from "bun:test"
import type { NodeIdentity } from "../../../src/store/leases"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { describeLeaseStores, type LeaseWorld } from "./lease-stores"

/*
 * Only phones that need a connection are leased (NEEDS_CONNECTION, src/store/leases.ts): claims,
 * the unowned count and releaseUnneededLease on both stores.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS
const LEASE_MS = 15_000
const A: NodeIdentity = { nodeId: "node-a", instanceId: "inst-a1" }
const B: NodeIdentity = { nodeId: "node-b", instanceId: "inst-b1" }
const reg = (node: NodeIdentity, nowMs: number) => ({ ...node, maxPhones: 1000, nowMs, leaseMs: LEASE_MS })
const ids = (leases: readonly { phoneId: string }[]) => leases.map((l) => l.phoneId)

/** phone_0000…0005: unpaired, logged out, offline for good, then pairing, connected and disconnected. */
async function mixedPhones(w: LeaseWorld): Promise<string[]> {
  const phones = await w.seedPhones(6, "unpaired")
  await w.setPhoneStatus(phones[1]!, "logged_out")
  await w.setPhoneStatus(phones[2]!, "disconnected", true)
  await w.setPhoneStatus(phones[3]!, "pairing")
  await w.setPhoneStatus(phones[4]!, "connected")
  await w.setPhoneStatus(phones[5]!, "disconnected")
  return phones
}

describeLeaseStores("leases: only phones that need a connection", (world) => {
  test("claims take only phones paired or pairing: unpaired, logged-out and operator-disconnected phones first in id order are skipped", async () => {
    const w = await world()
    const phones = await mixedPhones(w)
    const store = await w.node()
    await store.registerNode(reg(A, T))
    expect(await store.countUnownedPhones(T)).toBe(3)
    expect((await store.leaseCensus(T)).unowned).toBe(3)
    expect(ids(await store.claimPhones(A, 10, T, LEASE_MS))).toEqual(phones.slice(3))
    expect(await store.countUnownedPhones(T)).toBe(0)
    expect((await store.listNodes(T))[0]!.phones).toBe(3)
  })

  test("a phone outside the set can still be claimed by id, for pairing or connecting it on the node the request reached", async () => {
    const w = await world()
    const phones = await mixedPhones(w)
    const store = await w.node()
    await store.registerNode(reg(A, T))
    for (const phone of phones.slice(0, 3)) expect((await store.claimPhone(A, phone, T, LEASE_MS))?.token).toBe(1)
  })

  test("a phone that becomes paired joins the set: the next claim takes it, and the unowned count includes it", async () => {
    const w = await world()
    const [phone] = await w.seedPhones(1, "unpaired")
    const store = await w.node()
    await store.registerNode(reg(A, T))
    expect(await store.claimPhones(A, 10, T, LEASE_MS)).toEqual([])
    await w.setPhoneStatus(phone!, "connected")
    expect(await store.countUnownedPhones(T + 1)).toBe(1)
    expect(ids(await store.claimPhones(A, 10, T + 1, LEASE_MS))).toEqual([phone!])
  })

  test("releaseUnneededLease lets a held phone go once it is logged out, unpaired or offline for good, and keeps one that still needs a connection", async () => {
    const w = await world()
    const phones = await w.seedPhones(4)
    const store = await w.node()
    await store.registerNode(reg(A, T))
    await store.claimPhones(A, 10, T, LEASE_MS)
    // Paired (disconnected, reconnecting) and pairing: kept.
    await w.setPhoneStatus(phones[3]!, "pairing")
    expect(await store.releaseUnneededLease(A, phones[0]!, T + 1)).toBe(false)
    expect(await store.releaseUnneededLease(A, phones[3]!, T + 1)).toBe(false)
    await w.setPhoneStatus(phones[0]!, "logged_out")
    await w.setPhoneStatus(phones[1]!, "unpaired")
    await w.setPhoneStatus(phones[2]!, "disconnected", true)
    for (const phone of phones.slice(0, 3)) expect(await store.releaseUnneededLease(A, phone, T + 2)).toBe(true)
    expect(ids((await store.renewLeases(A, T + 3, LEASE_MS)).held)).toEqual([phones[3]!])
    expect((await store.listNodes(T + 3))[0]!.phones).toBe(1)
    // Released, not forgotten: the token keeps growing at the next claim by id.
    expect((await store.claimPhone(A, phones[0]!, T + 4, LEASE_MS))?.token).toBe(2)
  })

  test("releaseUnneededLease leaves another node's lease alone", async () => {
    const w = await world()
    const [phone] = await w.seedPhones(1)
    const store = await w.node()
    await store.registerNode(reg(A, T))
    await store.registerNode(reg(B, T))
    await store.claimPhones(B, 1, T, LEASE_MS)
    await w.setPhoneStatus(phone!, "logged_out")
    expect(await store.releaseUnneededLease(A, phone!, T + 1)).toBe(false)
    expect(ids((await store.renewLeases(B, T + 2, LEASE_MS)).held)).toEqual([phone!])
  })
})
