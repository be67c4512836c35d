import { LEASE_DEFAULTS } from "../../src/domain/lease-timings"
import { afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { waMessageIdFor } from "../../src/domain/wa-ids"
import { createLogger, type Logger } from "../../src/lib/logger"
import { FakeGateway, type FakeSession } from "../fakes/fake-gateway"
import { createHarness, type Harness } from "../helpers/harness"
import { TestClock } from "../helpers/test-clock"
import { testPostgres } from "../helpers/postgres"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"
import { send } from "../live/live-helpers"
import { freshMigratedDatabase } from "../store/contract/stores"

/*
 * Two nodes in one process on one PostgreSQL database (docs/operations.md § "Running several
 * nodes"), sharing one fake WhatsApp whose credentials both see: a phone is connected by the node
 * that holds its lease, a live send accepted by the other node is sent by the holder (woken by
 * the database's signal), a request that needs the phone's socket is refused by the other node
 * with the holder's name, and a node that stops hands its phones over to the other at once.
 * The real processes, their crashes and pauses are test/cluster's.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const TO = "+14155550199"
const nodes: Harness[] = []
// The run's PostgreSQL server starts in a hook of its own, so no test pays for it within its timeout.
beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(async () => {
  for (const h of nodes.splice(0).reverse()) await h.close()
}, SLOW_HOOK_TIMEOUT_MS)

/** Two nodes on a fresh database with one fake WhatsApp; n1 starts first, so n1 registers first. */
async function twoNodes(n1Logger?: Logger): Promise<{ n1: Harness; n2: Harness; gateway: FakeGateway }> {
  const url = await freshMigratedDatabase()
  const gateway = new FakeGateway()
  const start = (nodeId: string, logger?: Logger) => createHarness({ gateway, clock: new TestClock(), env: { WAGATE_DATABASE_URL: url, WAGATE_NODE_ID: nodeId }, logger })
  const n1 = await start("n1", n1Logger)
  nodes.push(n1)
  const n2 = await start("n2")
  nodes.push(n2)
  return { n1, n2, gateway }
}

/** A live tenant whose phone n1 paired (n1 claims it when asked to connect it). */
async function pairedOnN1(n1: Harness) {
  const tenant = await n1.seedTenant({ env: "live" })
  await n1.connectPhone(tenant.phone)
  await waitUntil(async () => (await n1.services.ctx.store.findPhone(tenant.phone.id))?.connectionStatus === "connected", 10_000, "n1 to connect the phone")
  return tenant
}

test("a live send accepted by the node that does not hold the phone is sent by the node that does", async () => {
  const { n1, n2, gateway } = await twoNodes()
  const { key, phone } = await pairedOnN1(n1)
  const res = await send(n2, key, { fromPhoneId: phone.phoneNumber, to: TO, content: "through n2" })
  expect(res.status).toBe(201)
  const waId = waMessageIdFor(res.body.data.id, 0)
  await waitUntil(() => gateway.sentBy(phone.id).some((p) => p.waMessageId === waId), 10_000, "n1 to hand the part to WhatsApp")
  // One socket only: n2 never opened one for the phone.
  expect(gateway.sessions.get(phone.id)?.length).toBe(1)
})

test("a request that needs the phone's socket, sent to the other node, is refused with the holder's name", async () => {
  const { n1, n2 } = await twoNodes()
  const { phone } = await pairedOnN1(n1)
  const res = await n2.request("POST", `/admin/v1/phones/${phone.id}/connect`, { key: await n2.adminToken(), body: { method: "qr" } })
  expect(res.status).toBe(409)
  expect(res.body.message[0]).toContain('held by node "n1"')
})

test("a live lookup through the phone's socket, sent to the other node, is refused with the holder's name; the holder answers it", async () => {
  const { n1, n2 } = await twoNodes()
  const { key, phone } = await pairedOnN1(n1)
  const path = `/v1/groups?fromPhoneId=${encodeURIComponent(phone.phoneNumber)}`
  const onN2 = await n2.request("GET", path, { key })
  expect(onN2.status).toBe(409)
  expect(onN2.body.message[0]).toContain('held by node "n1"')
  expect((await n1.request("GET", path, { key })).status).toBe(200)
})

test("a node that stops hands its phones over: the other node connects them at its next tick", async () => {
  const { n1, n2, gateway } = await twoNodes()
  const { phone } = await pairedOnN1(n1)
  gateway.credentials.add(phone.id)
  await n1.close()
  nodes.splice(nodes.indexOf(n1), 1)
  await n2.advance(5_000)
  await waitUntil(() => (gateway.sessions.get(phone.id)?.length ?? 0) === 2, 10_000, "n2 to open the phone's socket")
  // n2 records `connecting` as it opens the socket; the socket opens after that.
  await waitUntil(async () => (await n2.services.ctx.store.findPhone(phone.id))?.connectionStatus === "connecting", 10_000, "n2 to record its connect")
  gateway.current(phone.id).open(phone.phoneNumber)
  await waitUntil(async () => (await n2.services.ctx.store.findPhone(phone.id))?.connectionStatus === "connected", 10_000, "n2 to connect the phone")
  const leases = await n2.services.ctx.store.listPhoneLeases()
  expect(leases.find((l) => l.phoneId === phone.id)).toMatchObject({ nodeId: "n2", token: 2 })
})

test("a node paused past its lease that wakes to its old socket's close writes no status: the phone the other node connected stays connected", async () => {
  const warnings: string[] = []
  const logger = createLogger({ level: "warn", format: "json", nowIso: () => "t", write: (line) => void warnings.push(line) })
  const { n1, n2, gateway } = await twoNodes(logger)
  const { phone } = await pairedOnN1(n1)
  gateway.credentials.add(phone.id)
  const old = gateway.current(phone.id)
  // n1 is paused: its clock stands still while n2's runs past n1's lease, and n2 takes the phone over.
  // One renewal interval at a time, each followed by a wait in real time for n2's socket: a
  // larger step taken while n2 is still opening the socket would run its connect timeout out.
  const n2Opened = () => (gateway.sessions.get(phone.id)?.length ?? 0) >= 2
  for (let i = 0; i < 12 && !n2Opened(); i++) {
    await n2.advance(LEASE_DEFAULTS.renewEveryMs)
    await waitUntil(n2Opened, 1_000, "n2's socket").catch(() => undefined)
  }
  await waitUntil(() => (gateway.sessions.get(phone.id)?.length ?? 0) === 2, 10_000, "n2 to open the phone's socket")
  // n2 records `connecting` as it opens the socket; the socket opens after that.
  await waitUntil(async () => (await n2.services.ctx.store.findPhone(phone.id))?.connectionStatus === "connecting", 10_000, "n2 to record its connect")
  // The newest socket opens (should n2 have opened another meanwhile, that one opens in turn).
  const opened = new Set<FakeSession>()
  await waitUntil(async () => {
    const newest = gateway.current(phone.id)
    if (newest !== old && !opened.has(newest)) opened.add(newest) && newest.open(phone.phoneNumber)
    return (await n2.services.ctx.store.findPhone(phone.id))?.connectionStatus === "connected"
  }, 10_000, "n2 to connect the phone")
  const connectedAtMs = (await n2.services.ctx.store.findPhone(phone.id))!.lastConnectedAtMs
  // n1 wakes up to WhatsApp closing its old socket: the same credentials connected elsewhere.
  old.drop("replaced")
  await waitUntil(() => warnings.some((l) => l.includes("was refused: another node holds the phone now")), 10_000, "n1 to find its status write refused")
  expect(await n2.services.ctx.store.findPhone(phone.id)).toMatchObject({ connectionStatus: "connected", lastConnectedAtMs: connectedAtMs, lastErrorCode: null })
  expect((await n2.services.ctx.store.listPhoneLeases()).find((l) => l.phoneId === phone.id)).toMatchObject({ nodeId: "n2", token: 2 })
})
