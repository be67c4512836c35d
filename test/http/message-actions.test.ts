import { afterEach, describe, expect, test } from "bun:test"
import { EVENT_CATALOGUE } from "../../src/domain/event-catalogue"
import { EDIT_WINDOW_MS, REVOKE_WINDOW_MS } from "../../src/domain/message-actions"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import { Message } from "../../src/http/models/messages"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"
import { eventsOf, iso, send } from "../live/live-helpers"

/*
 * Acting on a message with test keys (docs/api.md § "Act on a message"): reactions, edits and
 * revokes change the sandbox message at once, by the same rules as live keys; every bad input
 * is one readable message. The live path is test/live/message-actions.test.ts.
 */

let h: Harness
afterEach(() => h.close())

async function sandboxMessage(to = "+14155550199", content = "Your order has shipped") {
  h = await createHarness()
  const tenant = await h.seedTenant()
  await createEndpoint(h.services.ctx, { accountId: tenant.account.id, env: "test", url: "http://127.0.0.1:9/unused", events: ["*"] })
  const res = await send(h, tenant.key, { fromPhoneId: tenant.phone.phoneNumber, to, content })
  expect(res.status).toBe(201)
  return { ...tenant, message: res.body.data as { id: string; sentAt: string | null; status: string } }
}

const react = (key: string, id: string, body: unknown) => h.request("POST", `/v1/messages/${id}/reaction`, { key, body })
const edit = (key: string, id: string, body: unknown) => h.request("PATCH", `/v1/messages/${id}`, { key, body })
const revoke = (key: string, id: string) => h.request("DELETE", `/v1/messages/${id}`, { key })

describe("reactions with test keys", () => {
  test.each(["👍", "❤️", "🇧🇷", "1️⃣", "👍🏽", "👨‍👩‍👧"])("%s is one emoji: 200 with the emoji, and message.reaction from the sending phone", async (emoji) => {
    const { key, phone, message } = await sandboxMessage()
    const res = await react(key, message.id, { emoji })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ success: true, data: { messageId: message.id, emoji } })
    const [event] = eventsOf(h, "message.reaction")
    expect(event!.data).toEqual({ messageId: message.id, from: phone.phoneNumber, emoji, removed: false, at: iso(h.clock.nowMs()) })
    expectSchema(EVENT_CATALOGUE["message.reaction"].data, event!.data)
  })

  test('"" removes the reaction: 200, and message.reaction says removed', async () => {
    const { key, message } = await sandboxMessage()
    await react(key, message.id, { emoji: "👍" })
    const res = await react(key, message.id, { emoji: "" })
    expect(res.body.data).toEqual({ messageId: message.id, emoji: "" })
    expect(eventsOf(h, "message.reaction").map((e) => [e.data.emoji, e.data.removed])).toEqual([
      ["👍", false],
      ["", true],
    ])
  })

  test.each([
    { name: "a letter", body: { emoji: "a" } },
    { name: "two emoji", body: { emoji: "👍👍" } },
    { name: "an emoji and a space", body: { emoji: "👍 " } },
    { name: "a digit", body: { emoji: "7" } },
  ])("$name is not one emoji: 400 with one readable message, no event", async ({ body }) => {
    const { key, message } = await sandboxMessage()
    expect(expectErrorEnvelope(await react(key, message.id, body), 400, "Bad Request")).toEqual([
      'emoji must be exactly one emoji (one grapheme, e.g. "👍"), or "" to remove the reaction',
    ])
    expect(eventsOf(h, "message.reaction")).toEqual([])
  })

  test.each([
    { name: "no emoji", body: {}, messages: ["emoji is required"] },
    { name: "a number", body: { emoji: 1 }, messages: ['emoji must be a string: one emoji, or "" to remove the reaction'] },
    { name: "an unknown field", body: { emoji: "👍", to: "+1" }, messages: ["to is not a recognised field"] },
  ])("$name: 400 with one message per problem", async ({ body, messages }) => {
    const { key, message } = await sandboxMessage()
    expect(expectErrorEnvelope(await react(key, message.id, body), 400, "Bad Request")).toEqual([...messages])
  })

  test("an inmsg_ id with a test key is 404 (the sandbox receives nothing); an unknown msg_ id is 404", async () => {
    const { key } = await sandboxMessage()
    expect(expectErrorEnvelope(await react(key, "inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p", { emoji: "👍" }), 404, "Not Found")).toEqual([
      "Inbound message inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p not found",
    ])
    expectErrorEnvelope(await react(key, "msg_01jd0m3k7v5q9z8y6x4w2t0r1p", { emoji: "👍" }), 404, "Not Found")
  })

  test("a failed message (a failure recipient) cannot be reacted to: 409", async () => {
    const { key, message } = await sandboxMessage("+12025550101")
    expect(message.status).toBe("failed")
    expect(expectErrorEnvelope(await react(key, message.id, { emoji: "👍" }), 409, "Conflict")).toEqual([
      `Message ${message.id} failed and cannot be reacted to`,
    ])
  })

  test("another account's message is 404 and gets no reaction", async () => {
    const { message } = await sandboxMessage()
    const other = await h.seedTenant()
    expectErrorEnvelope(await react(other.key, message.id, { emoji: "👍" }), 404, "Not Found")
    expect(eventsOf(h, "message.reaction")).toEqual([])
  })
})

describe("edits with test keys", () => {
  test("within 15 minutes of sentAt: 200, the content is replaced and editedAt set; GET shows the same", async () => {
    const { key, message } = await sandboxMessage()
    await h.advance(EDIT_WINDOW_MS)
    const res = await edit(key, message.id, { content: "Your order has shipped (tracking 1Z999)" })
    expect(res.status).toBe(200)
    expectSchema(Message, res.body.data)
    expect(res.body.data).toMatchObject({ id: message.id, content: "Your order has shipped (tracking 1Z999)", editedAt: iso(h.clock.nowMs()), revokedAt: null })
    expect((await h.request("GET", `/v1/messages/${message.id}`, { key })).body.data).toEqual(res.body.data)
  })

  test("a fresh message reports editedAt and revokedAt as null", async () => {
    const { key, message } = await sandboxMessage()
    expect((await h.request("GET", `/v1/messages/${message.id}`, { key })).body.data).toMatchObject({ editedAt: null, revokedAt: null })
  })

  test("one millisecond after the 15 minutes: 409, the content unchanged", async () => {
    const { key, message } = await sandboxMessage()
    await h.advance(EDIT_WINDOW_MS + 1)
    expect(expectErrorEnvelope(await edit(key, message.id, { content: "too late" }), 409, "Conflict")).toEqual([
      `Message ${message.id} can be edited only within 15 minutes of sentAt`,
    ])
    expect((await h.request("GET", `/v1/messages/${message.id}`, { key })).body.data).toMatchObject({ content: "Your order has shipped", editedAt: null })
  })

  test("media sent without a caption has no text to edit: 409", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant()
    const sent = await send(h, key, { fromPhoneId: phone.phoneNumber, to: "+14155550199", mediaUrls: ["https://example.com/a.pdf"] })
    expect(expectErrorEnvelope(await edit(key, sent.body.data.id, { content: "a caption" }), 409, "Conflict")).toEqual([
      `Message ${sent.body.data.id} has no text or caption to edit`,
    ])
  })

  test("a failed message: 409", async () => {
    const { key, message } = await sandboxMessage("120363000000000009@g.us")
    expect(message.status).toBe("failed")
    expect(expectErrorEnvelope(await edit(key, message.id, { content: "x" }), 409, "Conflict")).toEqual([`Message ${message.id} failed and cannot be edited`])
  })

  test.each([
    { name: "blank content", body: { content: "  " }, messages: ["content must not be empty"] },
    { name: "content past 4096 characters", body: { content: "😀".repeat(4097) }, messages: ["content must be at most 4096 characters"] },
    { name: "no content", body: {}, messages: ["content is required"] },
    { name: "an unknown field", body: { content: "x", mediaUrls: [] }, messages: ["mediaUrls is not a recognised field"] },
  ])("$name: 400 with one readable message", async ({ body, messages }) => {
    const { key, message } = await sandboxMessage()
    expect(expectErrorEnvelope(await edit(key, message.id, body), 400, "Bad Request")).toEqual([...messages])
  })
})

describe("revokes with test keys", () => {
  test("200 with revokedAt set; the message stays, content and all; a second DELETE answers the same", async () => {
    const { key, message } = await sandboxMessage()
    await h.advance(REVOKE_WINDOW_MS)
    const res = await revoke(key, message.id)
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ id: message.id, content: "Your order has shipped", revokedAt: iso(h.clock.nowMs()) })
    await h.advance(1_000)
    expect((await revoke(key, message.id)).body.data).toEqual(res.body.data)
    expect((await h.request("GET", `/v1/messages/${message.id}`, { key })).body.data).toEqual(res.body.data)
  })

  test("a revoked message can no longer be edited or reacted to: 409", async () => {
    const { key, message } = await sandboxMessage()
    await revoke(key, message.id)
    expect(expectErrorEnvelope(await edit(key, message.id, { content: "x" }), 409, "Conflict")).toEqual([`Message ${message.id} was revoked and cannot be edited`])
    expect(expectErrorEnvelope(await react(key, message.id, { emoji: "👍" }), 409, "Conflict")).toEqual([
      `Message ${message.id} was revoked and cannot be reacted to`,
    ])
  })

  test("past 2 days after sentAt: 409", async () => {
    const { key, message } = await sandboxMessage()
    await h.advance(REVOKE_WINDOW_MS + 1)
    expect(expectErrorEnvelope(await revoke(key, message.id), 409, "Conflict")).toEqual([`Message ${message.id} can be revoked only within 2 days of sentAt`])
  })

  test("a failed message: 409, nothing revoked", async () => {
    const { key, message } = await sandboxMessage("+12025550101")
    expect(expectErrorEnvelope(await revoke(key, message.id), 409, "Conflict")).toEqual([`Message ${message.id} failed and cannot be revoked`])
    expect((await h.request("GET", `/v1/messages/${message.id}`, { key })).body.data.revokedAt).toBeNull()
  })

  test("another account's message: 404, not revoked", async () => {
    const { key, message } = await sandboxMessage()
    const other = await h.seedTenant()
    expectErrorEnvelope(await revoke(other.key, message.id), 404, "Not Found")
    expect((await h.request("GET", `/v1/messages/${message.id}`, { key })).body.data.revokedAt).toBeNull()
  })
})

describe("read receipts with test keys", () => {
  test("there is no inbound message to mark read: 404", async () => {
    const { key } = await sandboxMessage()
    expect(expectErrorEnvelope(await h.request("POST", "/v1/messages/inbound/inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p/read", { key }), 404, "Not Found")).toEqual([
      "Inbound message inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p not found",
    ])
  })
})
