import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { waMessageIdFor } from "../../src/domain/wa-ids"
import { createHarness, type Harness } from "../helpers/harness"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { verifySignature } from "../helpers/verify-signature"
import { WebhookReceiver, waitUntil } from "../helpers/webhook-receiver"
import { addEndpoint } from "../helpers/webhooks"
import { getMessage, liveTenant, send } from "../live/live-helpers"

/*
 * The API's main paths on both stores: the embedded SQLite and PostgreSQL (WAGATE_DATABASE_URL,
 * a fresh migrated database on the run's throwaway server). The same requests give the same
 * answers; only the store differs. PostgreSQL answers over a socket, so these tests wait for
 * outcomes instead of counting event-loop turns.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const TO = "+14155550199"
let h: Harness
let receiver: WebhookReceiver | null = null
afterEach(async () => {
  await h.close()
  await receiver?.stop()
  receiver = null
})

/** Advances the clock in small steps until `condition` holds (time-driven work on an async store). */
async function advanceUntil(condition: () => Promise<boolean>, stepMs: number, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return
    await h.advance(stepMs)
    await Bun.sleep(5)
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe.each(["sqlite", "postgres"] as const)("on %s", (database) => {
  test("a sandbox send goes sent → delivered → read, and each event reaches the receiver signed, in order", async () => {
    h = await createHarness({ database })
    receiver = new WebhookReceiver()
    const { account, key, phone } = await h.seedTenant()
    const { secret } = await addEndpoint(h, account.id, receiver.url())
    const created = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: TO, content: "Order shipped" } })
    expect(created.status).toBe(201)
    expect(created.body.data.status).toBe("sent")
    const id = created.body.data.id
    await advanceUntil(async () => (await h.request("GET", `/v1/messages/${id}`, { key })).body.data.status === "read", 500, "the message to be read")
    const hooks = await receiver.waitFor(3)
    expect(hooks.map((x) => x.json.event)).toEqual(["message.sent", "message.delivered", "message.read"])
    for (const hook of hooks) {
      expect(hook.json.data.messageId).toBe(id)
      expect(verifySignature(hook.headers["x-service-signature"]!, hook.body, secret, Number(hook.headers["x-service-signature"]!.split(",")[0]!.slice(2)))).toBe(true)
    }
  })

  test("an idempotency key replays the first message; the list pages newest first with its total", async () => {
    h = await createHarness({ database })
    const { key, phone } = await h.seedTenant()
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const res = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: TO, content: `m${i}`, idempotencyKey: `k${i}` } })
      expect(res.status).toBe(201)
      ids.push(res.body.data.id)
    }
    const replay = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: TO, content: "m2", idempotencyKey: "k2" } })
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.body.data.id).toBe(ids[2])
    const page1 = await h.request("GET", "/v1/messages?limit=2&page=1", { key })
    const page3 = await h.request("GET", "/v1/messages?limit=2&page=3", { key })
    expect(page1.body.data.data.map((m: { id: string }) => m.id)).toEqual([ids[4], ids[3]])
    expect(page3.body.data.data.map((m: { id: string }) => m.id)).toEqual([ids[0]])
    expect(page1.body.data.pagination).toMatchObject({ total: 5, page: 1, limit: 2 })
  })

  test("the sandbox answers back: a simulated message, vote and call are recorded in the test environment, reach the receiver, and stay invisible to a live key", async () => {
    h = await createHarness({ database })
    receiver = new WebhookReceiver()
    const { account, key, phone } = await h.seedTenant()
    await addEndpoint(h, account.id, receiver.url(), { events: ["message.received", "poll.vote", "call.received", "call.ended"] })
    const live = await h.seedKey(account.id, { env: "live" })
    const poll = (await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+12025550107", poll: { question: "Lunch?", options: ["Pizza", "Sushi"] } } })).body.data.id
    const said = await h.request("POST", "/v1/sandbox/inbound", { key, body: { fromPhoneId: phone.phoneNumber, from: TO, content: "Sushi please", replyTo: poll } })
    expect(said.status).toBe(201)
    const inboundId = said.body.data.message.id
    expect((await h.request("POST", "/v1/sandbox/inbound", { key, body: { fromPhoneId: phone.phoneNumber, from: TO, pollVote: { messageId: poll, options: ["Sushi"] } } })).status).toBe(201)
    const call = (await h.request("POST", "/v1/sandbox/calls", { key, body: { fromPhoneId: phone.phoneNumber, from: TO } })).body.data
    expect((await h.request("POST", `/v1/calls/${call.callId}/reject`, { key: live, body: { fromPhoneId: phone.phoneNumber } })).status).toBe(404)
    expect((await h.request("POST", `/v1/calls/${call.callId}/reject`, { key, body: { fromPhoneId: phone.phoneNumber } })).status).toBe(204)
    expect((await h.request("GET", `/v1/messages/inbound/${inboundId}`, { key })).body.data).toMatchObject({ content: "Sushi please", replyTo: poll })
    expect((await h.request("GET", `/v1/messages/inbound/${inboundId}`, { key: live })).status).toBe(404)
    expect((await h.request("GET", `/v1/messages/${poll}/poll`, { key })).body.data.options).toEqual([{ name: "Pizza", votes: 0 }, { name: "Sushi", votes: 1 }])
    const hooks = await receiver.waitFor(4)
    expect(hooks.map((x) => x.json.event).sort()).toEqual(["call.ended", "call.received", "message.received", "poll.vote"])
  })

  test("a revoked key is refused from its next request on", async () => {
    h = await createHarness({ database })
    const { account, key } = await h.seedTenant()
    expect((await h.request("GET", "/v1/account", { key })).status).toBe(200)
    const keys = await h.request("GET", `/admin/v1/accounts/${account.id}/keys`, { key: await h.adminToken() })
    const keyId = keys.body.data[0].id
    expect((await h.request("DELETE", `/admin/v1/keys/${keyId}`, { key: await h.adminToken() })).status).toBe(200)
    expect((await h.request("GET", "/v1/account", { key })).status).toBe(401)
  })

  test("a live send is handed to the phone, and its ack makes it sent", async () => {
    h = await createHarness({ database })
    const { key, phone } = await liveTenant(h)
    await waitUntil(async () => (await h.request("GET", `/v1/phone-numbers/${phone.id}`, { key })).body.data?.connectionStatus === "connected", 10_000, "the phone to connect")
    const res = await send(h, key, { fromPhoneId: phone.phoneNumber, to: TO, content: "Hello live" })
    expect(res.status).toBe(201)
    expect(res.body.data.status).toBe("pending")
    const waId = waMessageIdFor(res.body.data.id, 0)
    await waitUntil(() => h.gateway.sentBy(phone.id).some((p) => p.waMessageId === waId), 10_000, "the part to be handed to the phone")
    h.gateway.current(phone.id).ack(waId, h.clock.nowMs())
    await waitUntil(async () => (await getMessage(h, key, res.body.data.id)).status === "sent", 10_000, "the message to be sent")
  })

  test("a location, a contact card, mentions and a voice note read back as sent from GET and the list", async () => {
    h = await createHarness({ database })
    const { key, phone } = await h.seedTenant()
    const location = { latitude: 52.52, longitude: 13.4, name: "Our shop" }
    const contact = { name: "Acme Support", phoneNumbers: ["+14155550123"], email: "help@acme.example" }
    const bodies = [
      { location },
      { contact },
      { to: "120363000000000001@g.us", content: "@14155550199 look", mentions: ["+14155550199"] },
      { mediaUrls: ["https://files.example.com/note.ogg"], voiceNote: true },
    ]
    const ids: string[] = []
    for (const body of bodies) {
      const res = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: TO, ...body } })
      expect(res.status).toBe(201)
      ids.push(res.body.data.id)
    }
    const read = await Promise.all(ids.map(async (id) => (await h.request("GET", `/v1/messages/${id}`, { key })).body.data))
    expect(read.map((m) => [m.location, m.contact, m.mentions, m.voiceNote])).toEqual([
      [location, null, null, null],
      [null, contact, null, null],
      [null, null, ["+14155550199"], null],
      [null, null, null, true],
    ])
    const listed = (await h.request("GET", "/v1/messages", { key })).body.data.data
    expect(ids.map((id) => listed.find((m: { id: string }) => m.id === id))).toEqual(read)
  })
})
