import { afterEach, expect, setDefaultTimeout, test } from "bun:test"
import { adminTokenIn, call, cleanupProcesses, dataDir, sandboxKeyIn, start, stop } from "../helpers/wagate-process"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { verifySignature } from "../helpers/verify-signature"
import { WebhookReceiver } from "../helpers/webhook-receiver"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * The sandbox answering back in the real program (docs/api.md § "Sandbox inbound and calls"):
 * the first run's sandbox key makes a phone receive a customer's message, a signed
 * message.received reaches a receiver, and after a restart the message is still listed and the
 * simulated call, still ringing, is rejected with the same key.
 */

let receiver: WebhookReceiver | null = null
afterEach(async () => {
  await cleanupProcesses()
  await receiver?.stop()
  receiver = null
}, SLOW_HOOK_TIMEOUT_MS)

test("a simulated message reaches a receiver signed, and it and a ringing simulated call outlive a restart", async () => {
  const dir = dataDir()
  const first = await start(dir)
  await first.p.waitFor(/Admin token: .*\n/)
  const key = sandboxKeyIn(first.p.out)!
  const admin = adminTokenIn(first.p.out)!
  const accountId = (await call(first.base, "GET", "/admin/v1/accounts", admin)).body.data[0].accountId as string
  expect((await call(first.base, "POST", `/admin/v1/accounts/${accountId}/phones`, admin, { phoneNumber: "+14155550123" })).status).toBe(201)
  receiver = new WebhookReceiver()
  const endpoint = await call(first.base, "POST", `/admin/v1/accounts/${accountId}/webhooks`, admin, { url: receiver.url(), environment: "test", events: ["message.received"] })
  expect(endpoint.status).toBe(201)

  const said = await call(first.base, "POST", "/v1/sandbox/inbound", key, { fromPhoneId: "+14155550123", from: "+14155550199", content: "Is it ready?" })
  expect(said.status).toBe(201)
  const id = said.body.data.message.id as string
  const [hook] = await receiver.waitFor(1, 10_000)
  expect(hook!.json).toMatchObject({ event: "message.received", data: { messageId: id, content: "Is it ready?" } })
  const signature = hook!.headers["x-service-signature"]!
  expect(verifySignature(signature, hook!.body, endpoint.body.data.secret, Number(signature.split(",")[0]!.slice(2)))).toBe(true)
  const ringing = await call(first.base, "POST", "/v1/sandbox/calls", key, { fromPhoneId: "+14155550123", from: "+14155550199" })
  expect(ringing.body.data.status).toBe("ringing")
  expect(await stop(first)).toBe(0)

  const second = await start(dir)
  const listed = await call(second.base, "GET", "/v1/messages/inbound", key)
  expect(listed.body.data.data.map((m: { id: string }) => m.id)).toEqual([id])
  const rejected = await fetch(`${second.base}/v1/calls/${ringing.body.data.callId}/reject`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ fromPhoneId: "+14155550123" }),
  })
  expect(rejected.status).toBe(204)
  expect(await stop(second)).toBe(0)
})
