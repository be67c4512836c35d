import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { verifySignature } from "../helpers/verify-signature"
import { adminTokenIn, call, cleanupProcesses, dataDir, sandboxKeyIn, start, stop, type Server } from "../helpers/wagate-process"
import { waitUntil, WebhookReceiver } from "../helpers/webhook-receiver"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * Durability of webhook deliveries across a crash: the server is killed with SIGKILL (no
 * shutdown code runs) and started again on the same data directory.
 */

let receiver: WebhookReceiver
afterEach(async () => {
  await cleanupProcesses()
  await receiver?.stop()
}, SLOW_HOOK_TIMEOUT_MS)

async function setUp(server: Server) {
  // The first-run block follows the "listening" line; wait for all of it.
  await server.p.waitFor(/^ {2}Admin token: {2}adm_\w+$/m)
  const key = sandboxKeyIn(server.p.out)!
  const admin = adminTokenIn(server.p.out)!
  const accounts = await call(server.base, "GET", "/admin/v1/accounts", admin)
  const accountId = accounts.body.data[0].accountId as string
  await call(server.base, "POST", `/admin/v1/accounts/${accountId}/phones`, admin, { phoneNumber: "+14155550123" })
  const endpoint = await call(server.base, "POST", `/admin/v1/accounts/${accountId}/webhooks`, admin, {
    url: receiver.url(),
    environment: "test",
    events: ["message.sent"],
  })
  return { key, admin, endpointId: endpoint.body.data.id as string, secret: endpoint.body.data.secret as string }
}

const send = (server: Server, key: string, to = "+14155550199") =>
  call(server.base, "POST", "/v1/messages/send", key, { fromPhoneId: "+14155550123", to, content: "hi" })

describe("webhook deliveries survive SIGKILL", () => {
  test("a retry pending when the server is killed still arrives after the restart, signed, with the same event id", async () => {
    receiver = new WebhookReceiver()
    receiver.respondWith({ status: 500 })
    const dir = dataDir()
    // The first retry is due 3 s after the first attempt: the kill lands in between.
    const env = { WAGATE_WEBHOOK_RETRY_OFFSETS_MS: "3000,60000" }
    const first = await start(dir, env)
    const { key, admin, endpointId, secret } = await setUp(first)
    const sent = await send(first, key)
    expect(sent.status).toBe(201)
    await receiver.waitFor(1)
    await waitUntil(async () => {
      const d = await call(first.base, "GET", `/admin/v1/webhooks/${endpointId}/deliveries`, admin)
      return d.body.data.data[0]?.attemptCount === 1
    }, 5_000, "the failed first attempt to be recorded")

    first.p.kill("SIGKILL")
    await first.p.exited()
    expect(first.p.proc.signalCode).toBe("SIGKILL")
    expect(receiver.received).toHaveLength(1)

    const second = await start(dir, env)
    const [firstHook, retry] = await receiver.waitFor(2, 15_000)
    expect(retry!.headers["x-service-event-id"]).toBe(firstHook!.headers["x-service-event-id"]!)
    expect(retry!.headers["x-service-delivery-attempt"]).toBe("2")
    expect(retry!.body).toBe(firstHook!.body)
    expect(verifySignature(retry!.headers["x-service-signature"]!, retry!.body, secret, Math.floor(Date.now() / 1000))).toBe(true)
    expect(retry!.json.data.messageId).toBe(sent.body.data.id)

    await waitUntil(async () => {
      const d = await call(second.base, "GET", `/admin/v1/webhooks/${endpointId}/deliveries`, admin)
      return d.body.data.data[0]?.status === "succeeded"
    }, 5_000, "the delivery to be recorded as succeeded")
    const log = await call(second.base, "GET", `/admin/v1/webhooks/${endpointId}/deliveries`, admin)
    expect(log.body.data.data[0].attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 200])
    expect(await stop(second)).toBe(0)
  })

  test("no event is lost when the server is killed in the middle of a burst of sends", async () => {
    receiver = new WebhookReceiver()
    // The receiver is slow, so deliveries are still in flight or queued at the kill.
    receiver.fallback = { delayMs: 200, status: 200 }
    const dir = dataDir()
    const first = await start(dir)
    const { key, admin, endpointId } = await setUp(first)
    const ids: string[] = []
    for (let i = 0; i < 30; i++) {
      const res = await send(first, key, `+1415555${String(3000 + i)}`)
      expect(res.status).toBe(201)
      ids.push(res.body.data.id)
    }
    first.p.kill("SIGKILL")
    await first.p.exited()

    receiver.fallback = { status: 200 }
    const second = await start(dir)
    await waitUntil(() => new Set(receiver.received.map((r) => r.json?.data?.messageId)).size === ids.length, 15_000, "every message.sent event")
    expect(new Set(receiver.received.map((r) => r.json.data.messageId))).toEqual(new Set(ids))
    await waitUntil(async () => {
      const d = await call(second.base, "GET", `/admin/v1/webhooks/${endpointId}/deliveries?status=succeeded&limit=100`, admin)
      return d.body.data.pagination.total === ids.length
    }, 10_000, "every delivery to be recorded as succeeded")
    expect(await stop(second)).toBe(0)
  })
})
