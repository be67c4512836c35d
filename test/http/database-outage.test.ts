import { afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { waMessageIdFor } from "../../src/domain/wa-ids"
import { FakeGateway } from "../fakes/fake-gateway"
import { createHarness, type Harness } from "../helpers/harness"
import { testPostgres } from "../helpers/postgres"
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"
import { send } from "../live/live-helpers"
import { freshMigratedDatabase } from "../store/contract/stores"

/*
 * A PostgreSQL database that goes away under a running node and comes back (issue: "a database
 * that goes away while nodes run makes them report not ready and retry; they must not crash or
 * corrupt anything; accepted sends are kept until it comes back"). The node reaches the database
 * through a TCP proxy the test cuts and restores; the rest of the run's server is untouched.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

let h: Harness | null = null
let proxy: TcpProxy | null = null
beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(async () => {
  proxy?.restore()
  await h?.close()
  proxy?.stop()
  h = null
  proxy = null
}, SLOW_HOOK_TIMEOUT_MS)

/**
 * Moves the clock a second at a time, letting the keeper's tick (real database round trips)
 * finish between steps, until `condition` holds.
 */
async function advanceUntil(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 40 && !condition(); i++) {
    await h!.advance(1_000)
    await Bun.sleep(50)
  }
  await waitUntil(condition, 5_000, what)
}

test("while the database is away the node reports not ready and gives its phone up; once back it is ready, takes the phone again and sends what was accepted before", async () => {
  const url = new URL(await freshMigratedDatabase())
  proxy = startTcpProxy(Number(url.port))
  url.port = String(proxy.port)
  const gateway = new FakeGateway()
  h = await createHarness({ gateway, env: { WAGATE_DATABASE_URL: url.toString(), WAGATE_NODE_ID: "n1" } })
  const tenant = await h.seedTenant({ env: "live" })
  const { key, phone } = tenant
  await h.connectPhone(phone)
  await waitUntil(async () => (await h!.services.ctx.store.findPhone(phone.id))?.connectionStatus === "connected", 10_000, "the phone to connect")
  const res = await send(h, key, { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "accepted before the outage" })
  expect(res.status).toBe(201)
  const waId = waMessageIdFor(res.body.data.id, 0)
  await waitUntil(() => gateway.sentBy(phone.id).some((p) => p.waMessageId === waId), 10_000, "the part to be handed over")
  const firstSession = gateway.current(phone.id)
  const leaseStartMs = h.clock.nowMs()

  proxy.cut()
  expect((await h.request("GET", "/readyz")).status).toBe(503)
  // Renewals fail; before the lease could run out the node gives the phone up and closes its socket.
  await advanceUntil(() => firstSession.closed, "the socket to close once the lease is at risk")
  expect(h.clock.nowMs() - leaseStartMs).toBeLessThan(15_000)

  proxy.restore()
  await waitUntil(async () => (await h!.request("GET", "/readyz")).status === 200, 10_000, "the node to be ready again")
  // The next renewal holds the phone again (renewed if its lease had not run out, else claimed anew) and reconnects it.
  await advanceUntil(() => gateway.current(phone.id) !== firstSession, "a new socket for the phone")
  gateway.current(phone.id).open(phone.phoneNumber)
  // The message was never acknowledged, so it goes again with the same WhatsApp id, and its ack settles it.
  await waitUntil(() => gateway.sentBy(phone.id).filter((p) => p.waMessageId === waId).length === 2, 10_000, "the part to be handed over again")
  gateway.current(phone.id).ack(waId, h.clock.nowMs())
  await waitUntil(async () => (await h!.request("GET", `/v1/messages/${res.body.data.id}`, { key })).body.data?.status === "sent", 10_000, "the message to be sent")
  const lease = (await h.services.ctx.store.listPhoneLeases()).find((l) => l.phoneId === phone.id)
  expect(lease?.nodeId).toBe("n1")
  expect(lease!.expiresAtMs).toBeGreaterThan(h.clock.nowMs())
})
