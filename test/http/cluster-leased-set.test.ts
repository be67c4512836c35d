import { afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import type { PhoneRow } from "../../src/store/phones"
import { FakeGateway } from "../fakes/fake-gateway"
import { createHarness, type Harness } from "../helpers/harness"
import { testPostgres } from "../helpers/postgres"
import { TestClock } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"
import { freshMigratedDatabase } from "../store/contract/stores"

/*
 * Only phones that need a connection are leased (docs/architecture.md § "Nodes and leases"), with
 * two nodes in one process on one PostgreSQL database: unpaired phones take no node's capacity,
 * a phone logged out or disconnected by the operator lets its lease go at once, and such a phone
 * can still be connected again from either node.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const nodes: Harness[] = []
beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(async () => {
  for (const h of nodes.splice(0).reverse()) await h.close()
}, SLOW_HOOK_TIMEOUT_MS)

async function node(url: string, gateway: FakeGateway, nodeId: string, env: Record<string, string> = {}): Promise<Harness> {
  const h = await createHarness({ gateway, clock: new TestClock(), env: { WAGATE_DATABASE_URL: url, WAGATE_NODE_ID: nodeId, ...env } })
  nodes.push(h)
  return h
}

const holderOf = async (h: Harness, phoneId: string) => (await h.services.ctx.store.listPhoneLeases()).find((l) => l.phoneId === phoneId && l.nodeId !== null && l.expiresAtMs > h.services.ctx.clock.nowMs())?.nodeId ?? null

/** Unpaired phones whose ids sort before any generated one, as phones only test keys use. */
async function unpairedPhones(h: Harness, accountId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const nowMs = h.services.ctx.clock.nowMs()
    await h.services.ctx.store.insertPhone({ ...(await h.seedPhone(accountId)), id: `ph_000000${i}`, phoneNumber: `+1555000010${i}`, createdAtMs: nowMs, updatedAtMs: nowMs } as PhoneRow)
  }
}

async function connected(h: Harness, phoneId: string): Promise<void> {
  await waitUntil(async () => (await h.services.ctx.store.findPhone(phoneId))?.connectionStatus === "connected", 10_000, `${phoneId} to be connected`)
}

test("unpaired phones take no capacity: a node capped at one phone takes the paired phone, not the unpaired ones first in id order", async () => {
  const url = await freshMigratedDatabase()
  const gateway = new FakeGateway()
  const n1 = await node(url, gateway, "n1")
  const { account, phone } = await n1.seedTenant({ env: "live" })
  await n1.connectPhone(phone)
  await connected(n1, phone.id)
  await unpairedPhones(n1, account.id, 4)
  const n2 = await node(url, gateway, "n2", { WAGATE_NODE_MAX_PHONES: "1" })
  // n1 hands its phone over as it stops; n2's next tick claims what is free.
  await n1.close()
  nodes.splice(nodes.indexOf(n1), 1)
  await n2.advance(5_000)
  await waitUntil(async () => (await holderOf(n2, phone.id)) === "n2", 10_000, "n2 to claim the paired phone")
  expect((await n2.services.ctx.store.listNodes(n2.services.ctx.clock.nowMs())).find((n) => n.nodeId === "n2")?.phones).toBe(1)
  expect(await n2.services.ctx.store.countUnownedPhones(n2.services.ctx.clock.nowMs())).toBe(0)
})

test("a phone logged out on the node that holds it lets its lease go at once, without waiting for a tick", async () => {
  const url = await freshMigratedDatabase()
  const gateway = new FakeGateway()
  const n1 = await node(url, gateway, "n1")
  const { phone } = await n1.seedTenant({ env: "live" })
  await n1.connectPhone(phone)
  await connected(n1, phone.id)
  expect(await holderOf(n1, phone.id)).toBe("n1")
  const res = await n1.request("POST", `/admin/v1/phones/${phone.id}/logout`, { key: await n1.adminToken() })
  expect(res.status).toBe(200)
  expect(await holderOf(n1, phone.id)).toBeNull()
})

test("a phone the operator disconnected lets its lease go, and connecting it from the other node takes it there", async () => {
  const url = await freshMigratedDatabase()
  const gateway = new FakeGateway()
  const n1 = await node(url, gateway, "n1")
  const n2 = await node(url, gateway, "n2")
  const { phone } = await n1.seedTenant({ env: "live" })
  await n1.connectPhone(phone)
  await connected(n1, phone.id)
  expect((await n1.request("POST", `/admin/v1/phones/${phone.id}/disconnect`, { key: await n1.adminToken() })).status).toBe(200)
  expect(await holderOf(n1, phone.id)).toBeNull()
  // Ticks leave it alone: it needs no connection until someone connects it.
  await n1.advance(5_000)
  await n2.advance(5_000)
  expect(await holderOf(n1, phone.id)).toBeNull()
  const res = await n2.request("POST", `/admin/v1/phones/${phone.id}/connect`, { key: await n2.adminToken(), body: { method: "qr" } })
  expect(res.status).toBe(200)
  gateway.current(phone.id).open(phone.phoneNumber)
  await connected(n2, phone.id)
  expect(await holderOf(n2, phone.id)).toBe("n2")
})
