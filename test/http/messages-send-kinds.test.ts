import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { Envelope } from "../../src/http/models/common"
import { Message, SEND_EXAMPLES } from "../../src/http/models/messages"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"

/*
 * POST /v1/messages/send beyond text and media (docs/api.md § "Replies, mentions, locations, contact cards and voice notes"): replies, mentions,
 * locations, contact cards and voice notes, with test keys, against real SQLite.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const TO = "+14155550199"
const send = (key: string, body: unknown) => h.request("POST", "/v1/messages/send", { key, body })
const LOCATION = { latitude: 52.520008, longitude: 13.404954, name: "Our shop", address: "Alexanderplatz 1, 10178 Berlin" }
const CONTACT = { name: "Acme Support", phoneNumbers: ["+14155550123"], organization: "Acme, Inc.", email: "help@acme.example" }

/** Inserts an inbound message the way the live receiver records it. */
function insertInbound(accountId: string, phoneId: string, env: "live" | "test"): string {
  const id = h.services.ctx.ids.newId("inmsg")
  const now = h.clock.nowMs()
  h.services.sqlite!.run(
    `INSERT INTO inbound_messages (id, account_id, env, seq, phone_id, wa_message_id, from_address, to_number, content, type, is_group, group_id, received_at_ms, created_at_ms)
     VALUES (?, ?, ?, 1, ?, 'WAID-IN-1', '+14155550111', '+14155550100', 'where are you?', 'text', 0, NULL, ?, ?)`,
    [id, accountId, env, phoneId, now, now],
  )
  return id
}

describe("POST /v1/messages/send with replies, mentions, locations, contacts and voice notes: success", () => {
  test("a plain text send gains type text and replyTo null; every seed field is as before", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await send(key, { fromPhoneId: phone.phoneNumber, to: TO, content: "Hello" })
    expect(res.status).toBe(201)
    expectSchema(Envelope(Message), res.body)
    expect(res.body.data).toMatchObject({ content: "Hello", mediaUrls: [], status: "sent", type: "text", replyTo: null })
  })

  test("a media send is type media", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await send(key, { fromPhoneId: phone.phoneNumber, to: TO, mediaUrls: ["https://files.example.com/a.pdf"] })
    expect(res.body.data.type).toBe("media")
  })

  test("a reply quotes an earlier message of the account: replyTo is stored, returned and read back", async () => {
    const { key, phone } = await h.seedTenant()
    const first = (await send(key, { fromPhoneId: phone.phoneNumber, to: TO, content: "Your order shipped" })).body.data
    const reply = await send(key, { fromPhoneId: phone.phoneNumber, to: TO, content: "Tracking: 1Z999", replyTo: first.id })
    expect(reply.status).toBe(201)
    expectSchema(Envelope(Message), reply.body)
    expect(reply.body.data).toMatchObject({ replyTo: first.id, type: "text", status: "sent" })
    const read = await h.request("GET", `/v1/messages/${reply.body.data.id}`, { key })
    expect(read.body.data.replyTo).toBe(first.id)
  })

  test("a location is type location with empty content, born sent and simulated like any send", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await send(key, { fromPhoneId: phone.phoneNumber, to: TO, location: LOCATION })
    expect(res.status).toBe(201)
    expect(res.body.data).toMatchObject({ type: "location", content: "", mediaUrls: [], status: "sent" })
    await h.advance(h.config.sandboxReadMs)
    expect((await h.request("GET", `/v1/messages/${res.body.data.id}`, { key })).body.data.status).toBe("read")
  })

  test("the poles and the antimeridian are valid coordinates; name and address are optional", async () => {
    const { key, phone } = await h.seedTenant()
    for (const location of [{ latitude: -90, longitude: -180 }, { latitude: 90, longitude: 180 }, { latitude: 0, longitude: 0 }]) {
      expect((await send(key, { fromPhoneId: phone.phoneNumber, to: TO, location })).status).toBe(201)
    }
  })

  test("a contact card is type contact; one number and no organization or email is enough", async () => {
    const { key, phone } = await h.seedTenant()
    const full = await send(key, { fromPhoneId: phone.phoneNumber, to: TO, contact: CONTACT })
    expect(full.status).toBe(201)
    expect(full.body.data).toMatchObject({ type: "contact", content: "" })
    const bare = await send(key, { fromPhoneId: phone.phoneNumber, to: TO, contact: { name: "Bo", phoneNumbers: ["+447911123456"] } })
    expect(bare.status).toBe(201)
  })

  test("mentions in a group message are accepted, up to 50", async () => {
    const { key, phone } = await h.seedTenant()
    const mentions = Array.from({ length: 50 }, (_, i) => `+1415555${String(1000 + i)}`)
    const res = await send(key, { fromPhoneId: phone.phoneNumber, to: "120363000000000001@g.us", content: "@14155551000 please look", mentions })
    expect(res.status).toBe(201)
    expect(res.body.data).toMatchObject({ type: "text", isGroup: true, status: "sent" })
  })

  test("sandbox voice note: an .ogg or .opus URL is sent as media", async () => {
    const { key, phone } = await h.seedTenant()
    for (const url of ["https://files.example.com/note.ogg", "https://files.example.com/NOTE.OPUS?v=2"]) {
      const res = await send(key, { fromPhoneId: phone.phoneNumber, to: TO, mediaUrls: [url], voiceNote: true })
      expect(res.status).toBe(201)
      expect(res.body.data).toMatchObject({ type: "media", status: "sent" })
    }
  })

  test("sandbox voice note: any other URL is born failed with media_unsupported_type, as a live send of other audio ends", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await send(key, { fromPhoneId: phone.phoneNumber, to: TO, mediaUrls: ["https://files.example.com/note.mp3"], voiceNote: true })
    expect(res.status).toBe(201)
    expect(res.body.data).toMatchObject({ status: "failed", errorCode: "media_unsupported_type" })
    expect(res.body.data.errorMessage).toContain("Ogg/Opus")
  })

  test("a magic recipient's failure still wins over the voice note check", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await send(key, { fromPhoneId: phone.phoneNumber, to: "+12025550101", mediaUrls: ["https://files.example.com/note.mp3"], voiceNote: true })
    expect(res.body.data).toMatchObject({ status: "failed", errorCode: "recipient_not_on_whatsapp" })
  })

  test("every request example the OpenAPI document publishes is accepted with a test key", async () => {
    const { key, phone } = await h.seedTenant()
    const quoted = (await send(key, { fromPhoneId: phone.phoneNumber, to: TO, content: "quoted" })).body.data
    for (const [name, example] of Object.entries(SEND_EXAMPLES)) {
      const value: Record<string, unknown> = { ...example.value, fromPhoneId: phone.phoneNumber }
      // The sandbox has no inbound messages: the reply example quotes a sandbox message instead.
      if ("replyTo" in value) value.replyTo = quoted.id
      const res = await send(key, value)
      expect({ name, status: res.status, failed: res.body.data?.status === "failed" }).toEqual({ name, status: 201, failed: false })
    }
  })

  test("an idempotent replay of a location returns the same message; the same key with another location is 400", async () => {
    const { key, phone } = await h.seedTenant()
    const body = { fromPhoneId: phone.phoneNumber, to: TO, location: LOCATION, idempotencyKey: "loc-1" }
    const first = await send(key, body)
    const again = await send(key, body)
    expect(again.status).toBe(201)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.body.data.id).toBe(first.body.data.id)
    const moved = await send(key, { ...body, location: { ...LOCATION, latitude: 1 } })
    expect(expectErrorEnvelope(moved, 400, "Bad Request")).toEqual(["idempotencyKey was already used with different parameters"])
  })
})

describe("the Message resource reads back what was sent", () => {
  const KINDS = [
    { name: "a location", body: { location: LOCATION }, expected: { type: "location", location: LOCATION, contact: null, mentions: null, voiceNote: null } },
    { name: "a contact card", body: { contact: CONTACT }, expected: { type: "contact", location: null, contact: CONTACT, mentions: null, voiceNote: null } },
    {
      name: "mentions",
      body: { to: "120363000000000001@g.us", content: "@14155550199 look", mentions: ["+14155550199"] },
      expected: { type: "text", location: null, contact: null, mentions: ["+14155550199"], voiceNote: null },
    },
    {
      name: "a voice note",
      body: { mediaUrls: ["https://files.example.com/note.ogg"], voiceNote: true },
      expected: { type: "media", location: null, contact: null, mentions: null, voiceNote: true },
    },
    { name: "a plain text", body: { content: "Hello" }, expected: { type: "text", location: null, contact: null, mentions: null, voiceNote: null } },
  ]
  for (const kind of KINDS) {
    test(`${kind.name}: the send response, GET by id, the list and an idempotent replay all carry it as sent`, async () => {
      const { key, phone } = await h.seedTenant()
      const body = { fromPhoneId: phone.phoneNumber, to: TO, idempotencyKey: "read-back-1", ...kind.body }
      const sent = await send(key, body)
      expect(sent.status).toBe(201)
      expectSchema(Envelope(Message), sent.body)
      expect(sent.body.data).toMatchObject(kind.expected)
      const id = sent.body.data.id
      expect((await h.request("GET", `/v1/messages/${id}`, { key })).body.data).toMatchObject(kind.expected)
      const listed = (await h.request("GET", "/v1/messages", { key })).body.data.data.find((m: { id: string }) => m.id === id)
      expect(listed).toMatchObject(kind.expected)
      const replay = await send(key, body)
      expect(replay.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.body.data).toMatchObject(kind.expected)
    })
  }
})

describe("POST /v1/messages/send with replies, mentions, locations, contacts and voice notes: validation (400)", () => {
  const cases: { name: string; body: Record<string, unknown>; messages: string[] }[] = [
    { name: "latitude out of range", body: { location: { latitude: 90.5, longitude: 0 } }, messages: ["location.latitude must be between -90 and 90"] },
    { name: "longitude out of range", body: { location: { latitude: 0, longitude: -180.01 } }, messages: ["location.longitude must be between -180 and 180"] },
    {
      name: "both coordinates out of range: one message each",
      body: { location: { latitude: -91, longitude: 181 } },
      messages: ["location.latitude must be between -90 and 90", "location.longitude must be between -180 and 180"],
    },
    { name: "a location name over 256 characters", body: { location: { latitude: 0, longitude: 0, name: "n".repeat(257) } }, messages: ["location.name must be at most 256 characters"] },
    { name: "a location address over 512 characters", body: { location: { latitude: 0, longitude: 0, address: "a".repeat(513) } }, messages: ["location.address must be at most 512 characters"] },
    {
      name: "a location without coordinates",
      body: { location: { name: "somewhere" } },
      messages: ["location must be an object with numbers latitude and longitude and optional strings name and address"],
    },
    {
      name: "a location with an unknown field",
      body: { location: { latitude: 0, longitude: 0, zoom: 3 } },
      messages: ["location must be an object with numbers latitude and longitude and optional strings name and address"],
    },
    { name: "a contact with no number", body: { contact: { name: "Bo", phoneNumbers: [] } }, messages: ["contact.phoneNumbers must hold at least one number"] },
    {
      name: "a contact with six numbers",
      body: { contact: { name: "Bo", phoneNumbers: ["+14155550001", "+14155550002", "+14155550003", "+14155550004", "+14155550005", "+14155550006"] } },
      messages: ["contact.phoneNumbers must hold at most 5 numbers"],
    },
    { name: "a contact number that is not E.164", body: { contact: { name: "Bo", phoneNumbers: ["+14155550001", "0171 555"] } }, messages: ["contact.phoneNumbers[1] must be an E.164 number (+ and 8–15 digits)"] },
    { name: "a contact with an empty name", body: { contact: { name: " ", phoneNumbers: ["+14155550001"] } }, messages: ["contact.name must not be empty"] },
    { name: "a contact name over 256 characters", body: { contact: { name: "n".repeat(257), phoneNumbers: ["+14155550001"] } }, messages: ["contact.name must be at most 256 characters"] },
    {
      name: "a contact with a malformed email",
      body: { contact: { name: "Bo", phoneNumbers: ["+14155550001"], email: "not an email" } },
      messages: ["contact.email must be an email address of at most 254 characters"],
    },
    {
      name: "a contact without phoneNumbers",
      body: { contact: { name: "Bo" } },
      messages: ["contact must be an object with a string name, an array phoneNumbers of E.164 numbers, and optional strings organization and email"],
    },
    { name: "content and a location", body: { content: "hi", location: { latitude: 0, longitude: 0 } }, messages: ["send exactly one of content/mediaUrls, location, contact or poll"] },
    {
      name: "a location and a contact",
      body: { location: { latitude: 0, longitude: 0 }, contact: { name: "Bo", phoneNumbers: ["+14155550001"] } },
      messages: ["send exactly one of content/mediaUrls, location, contact or poll"],
    },
    { name: "media and a contact", body: { mediaUrls: ["https://files.example.com/a.pdf"], contact: { name: "Bo", phoneNumbers: ["+14155550001"] } }, messages: ["send exactly one of content/mediaUrls, location, contact or poll"] },
    {
      name: "51 mentions",
      body: { content: "hi all", mentions: Array.from({ length: 51 }, (_, i) => `+1415555${String(1000 + i)}`) },
      messages: ["mentions must hold at most 50 numbers"],
    },
    { name: "a mention that is not E.164", body: { content: "hi", mentions: ["+14155550001", "@bob"] }, messages: ["mentions[1] must be an E.164 number (+ and 8–15 digits)"] },
    { name: "mentions that are not an array", body: { content: "hi", mentions: "+14155550001" }, messages: ["mentions must be an array of E.164 numbers"] },
    {
      name: "mentions with a location",
      body: { location: { latitude: 0, longitude: 0 }, mentions: ["+14155550001"] },
      messages: ["mentions go with content; a location, a contact or a poll cannot mention anyone"],
    },
    { name: "a voice note without media", body: { content: "hi", voiceNote: true }, messages: ["voiceNote needs exactly one mediaUrls entry: the Ogg/Opus audio", "content must be empty when voiceNote is true: a voice note has no caption"] },
    {
      name: "a voice note with two media URLs",
      body: { mediaUrls: ["https://files.example.com/a.ogg", "https://files.example.com/b.ogg"], voiceNote: true },
      messages: ["voiceNote needs exactly one mediaUrls entry: the Ogg/Opus audio"],
    },
    {
      name: "a voice note with a caption",
      body: { content: "listen", mediaUrls: ["https://files.example.com/a.ogg"], voiceNote: true },
      messages: ["content must be empty when voiceNote is true: a voice note has no caption"],
    },
    { name: "voiceNote that is not a boolean", body: { mediaUrls: ["https://files.example.com/a.ogg"], voiceNote: "yes" }, messages: ["voiceNote must be true or false"] },
    { name: "a replyTo that is not a message id", body: { content: "hi", replyTo: "wamid.HBgL" }, messages: ["replyTo must be a msg_… or inmsg_… message id"] },
    { name: "neither content nor media nor location nor contact", body: {}, messages: ["content is required when mediaUrls is empty"] },
  ]
  test.each(cases)("$name", async ({ body, messages }) => {
    const { key, phone } = await h.seedTenant()
    const res = await send(key, { fromPhoneId: phone.phoneNumber, to: TO, ...body })
    expect(expectErrorEnvelope(res, 400, "Bad Request", "/v1/messages/send")).toEqual(messages)
  })

  test("a refused send stores nothing", async () => {
    const { key, phone } = await h.seedTenant()
    await send(key, { fromPhoneId: phone.phoneNumber, to: TO, location: { latitude: 100, longitude: 0 } })
    const list = await h.request("GET", "/v1/messages", { key })
    expect(list.body.data.pagination.total).toBe(0)
  })
})

describe("POST /v1/messages/send with replyTo: partitions (security)", () => {
  test("replyTo of a message that does not exist is 404 naming it, and nothing is stored", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await send(key, { fromPhoneId: phone.phoneNumber, to: TO, content: "hi", replyTo: "msg_01jd0m3k7v5q9z8y6x4w2t0r1p" })
    expect(expectErrorEnvelope(res, 404, "Not Found")).toEqual(["Message msg_01jd0m3k7v5q9z8y6x4w2t0r1p not found"])
    expect((await h.request("GET", "/v1/messages", { key })).body.data.pagination.total).toBe(0)
  })

  test("replyTo of another account's message is 404, as if it did not exist", async () => {
    const other = await h.seedTenant()
    const theirs = (await send(other.key, { fromPhoneId: other.phone.phoneNumber, to: TO, content: "private" })).body.data
    const { key, phone } = await h.seedTenant()
    const res = await send(key, { fromPhoneId: phone.phoneNumber, to: TO, content: "hi", replyTo: theirs.id })
    expect(expectErrorEnvelope(res, 404, "Not Found")).toEqual([`Message ${theirs.id} not found`])
  })

  test("replyTo of the same account's message in the other environment is 404", async () => {
    const { account, phone } = await h.seedTenant()
    const live = await h.seedKey(account.id, { env: "live" })
    const test_ = await h.seedKey(account.id, { env: "test" })
    const inbound = insertInbound(account.id, phone.id, "live")
    // A test key cannot quote a live inbound message, though the account is the same.
    const res = await send(test_, { fromPhoneId: phone.phoneNumber, to: TO, content: "hi", replyTo: inbound })
    expect(expectErrorEnvelope(res, 404, "Not Found")).toEqual([`Message ${inbound} not found`])
    const sandboxMessage = (await send(test_, { fromPhoneId: phone.phoneNumber, to: TO, content: "sandbox" })).body.data
    // The live key meets the phone check only after the target was found: 404 comes first.
    const fromLive = await send(live, { fromPhoneId: phone.phoneNumber, to: TO, content: "hi", replyTo: sandboxMessage.id })
    expect(fromLive.status).toBe(400)
    expect(fromLive.body.message).toEqual([`Phone ${phone.phoneNumber} is not connected (status: unpaired)`])
  })

  test("a live key may quote its own inbound message; another account's inbound is 404", async () => {
    const { account, phone } = await h.seedTenant()
    await h.connectPhone(phone)
    const live = await h.seedKey(account.id, { env: "live" })
    const inbound = insertInbound(account.id, phone.id, "live")
    const res = await send(live, { fromPhoneId: phone.phoneNumber, to: TO, content: "on my way", replyTo: inbound })
    expect(res.status).toBe(201)
    expect(res.body.data).toMatchObject({ status: "pending", replyTo: inbound, type: "text" })
    const other = await h.seedTenant()
    await h.connectPhone(other.phone)
    const otherLive = await h.seedKey(other.account.id, { env: "live" })
    const refused = await send(otherLive, { fromPhoneId: other.phone.phoneNumber, to: TO, content: "x", replyTo: inbound })
    expect(expectErrorEnvelope(refused, 404, "Not Found")).toEqual([`Message ${inbound} not found`])
  })
})
