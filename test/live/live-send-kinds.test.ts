import { afterEach, describe, expect, test } from "bun:test"
import { waMessageIdFor } from "../../src/domain/wa-ids"
import { buildVCard } from "../../src/domain/vcard"
import { createHarness, type Harness } from "../helpers/harness"
import { getMessage, liveTenant, mediaFixtures, send, sendJobCount } from "./live-helpers"

/*
 * Live sends beyond text and media (docs/live-whatsapp.md § "Replies, mentions, locations,
 * contacts and voice notes"), at the WhatsApp port: what each message hands to the gateway.
 */

const TO = "+14155550199"
const JID = "14155550199@s.whatsapp.net"
const NOTE = "https://media.example.com/note.ogg"
const MP3 = "https://media.example.com/song.mp3"
const IMAGE = "https://media.example.com/photo.jpg"

const fixtures = () =>
  mediaFixtures({
    [NOTE]: { kind: "audio", mimetype: "audio/ogg; codecs=opus", fileName: "note.opus", bytes: new TextEncoder().encode("OggS opus") },
    [MP3]: { kind: "audio", mimetype: "audio/mpeg", fileName: "song.mp3", bytes: new TextEncoder().encode("ID3 song") },
    [IMAGE]: { kind: "image", mimetype: "image/jpeg", fileName: "photo.jpg", bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1]) },
  })

let h: Harness
let media: ReturnType<typeof fixtures>
async function setup() {
  media = fixtures()
  h = await createHarness({ fetchMedia: media.fetchMedia })
  return liveTenant(h)
}
afterEach(() => h.close())

/** Records an inbound message the way the live receiver does. */
function insertInbound(accountId: string, phoneId: string, waMessageId: string, from: string, groupId: string | null): string {
  const id = h.services.ctx.ids.newId("inmsg")
  const now = h.clock.nowMs()
  h.services.sqlite!.run(
    `INSERT INTO inbound_messages (id, account_id, env, seq, phone_id, wa_message_id, from_address, to_number, content, type, is_group, group_id, received_at_ms, created_at_ms)
     VALUES (?, ?, 'live', 1, ?, ?, ?, '+14155550100', 'is my order on its way?', 'text', ?, ?, ?, ?)`,
    [id, accountId, phoneId, waMessageId, from, groupId === null ? 0 : 1, groupId, now, now],
  )
  return id
}

describe("live sends of replies, mentions, locations, contacts and voice notes", () => {
  test("a reply to an inbound message quotes its WhatsApp id, its sender and its text", async () => {
    const { account, key, phone } = await setup()
    const inbound = insertInbound(account.id, phone.id, "WAID-CUSTOMER-1", TO, null)
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "Yes, it shipped", replyTo: inbound })).body.data
    await h.settle()
    expect(h.gateway.sentBy(phone.id)).toEqual([
      { waMessageId: waMessageIdFor(m.id, 0), toJid: JID, text: "Yes, it shipped", quote: { waMessageId: "WAID-CUSTOMER-1", fromMe: false, from: TO, text: "is my order on its way?" } },
    ])
  })

  test("a reply to one of ours quotes its first part, fromMe; a multi-part reply carries the quote once, on the part sent first", async () => {
    const { key, phone } = await setup()
    const first = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "Order 1234 shipped" })).body.data
    await h.settle()
    h.gateway.current(phone.id).ack(waMessageIdFor(first.id, 0), h.clock.nowMs())
    await h.settle()
    await h.advance(h.config.sendIntervalMs * 2)
    const reply = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "the photo", mediaUrls: [IMAGE], replyTo: first.id })).body.data
    await h.advance(h.config.sendIntervalMs * 2)
    await h.settle()
    const sent = h.gateway.sentBy(phone.id).filter((p) => p.waMessageId !== waMessageIdFor(first.id, 0))
    expect(sent).toHaveLength(1)
    expect(sent[0]).toMatchObject({
      waMessageId: waMessageIdFor(reply.id, 0),
      media: { kind: "image", caption: "the photo" },
      quote: { waMessageId: waMessageIdFor(first.id, 0), fromMe: true, text: "Order 1234 shipped" },
    })
  })

  test("mentions ride on the part with the text, as E.164 numbers", async () => {
    const { key, phone } = await setup()
    const group = "120363000000000001@g.us"
    h.gateway.groups.set(phone.id, [{ id: group, name: "Team", announcementOnly: false, selfIsMember: true, selfIsAdmin: false }])
    const m = (await send(h, key, { fromPhoneId: phone.id, to: group, content: "@14155550111 @14155550122 please check", mentions: ["+14155550111", "+14155550122"] })).body.data
    await h.settle()
    expect(h.gateway.sentBy(phone.id)).toEqual([
      { waMessageId: waMessageIdFor(m.id, 0), toJid: group, text: "@14155550111 @14155550122 please check", mentions: ["+14155550111", "+14155550122"] },
    ])
  })

  test("a location is one part with its coordinates, name and address, and no text", async () => {
    const { key, phone } = await setup()
    const location = { latitude: -33.8568, longitude: 151.2153, name: "Opera House", address: "Bennelong Point, Sydney" }
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, location })).body.data
    await h.settle()
    expect(h.gateway.sentBy(phone.id)).toEqual([{ waMessageId: waMessageIdFor(m.id, 0), toJid: JID, location }])
  })

  test("a contact card is one part with the vCard wagate built", async () => {
    const { key, phone } = await setup()
    const contact = { name: "Acme; Support", phoneNumbers: ["+14155550123", "+447911123456"], organization: "Acme, Inc." }
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, contact })).body.data
    await h.settle()
    expect(h.gateway.sentBy(phone.id)).toEqual([{ waMessageId: waMessageIdFor(m.id, 0), toJid: JID, contact: { displayName: "Acme; Support", vcard: buildVCard(contact) } }])
    expect(buildVCard(contact)).toContain("FN:Acme\\; Support")
  })

  test("an Ogg/Opus voice note is handed over as audio flagged voiceNote, with no text part", async () => {
    const { key, phone } = await setup()
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, mediaUrls: [NOTE], voiceNote: true })).body.data
    await h.settle()
    const sent = h.gateway.sentBy(phone.id)
    expect(sent).toHaveLength(1)
    expect(sent[0]).toMatchObject({ waMessageId: waMessageIdFor(m.id, 0), media: { kind: "audio", mimetype: "audio/ogg; codecs=opus", voiceNote: true } })
  })

  test("a voice note whose URL returns other audio fails with media_unsupported_type and sends nothing", async () => {
    const { key, phone } = await setup()
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, mediaUrls: [MP3], voiceNote: true })).body.data
    expect(m.status).toBe("pending")
    await h.settle()
    expect(h.gateway.sentBy(phone.id)).toEqual([])
    const failed = await getMessage(h, key, m.id)
    expect(failed).toMatchObject({ status: "failed", errorCode: "media_unsupported_type" })
    expect(failed.errorMessage).toBe("A voice note must be Ogg/Opus audio; the URL returned audio/mpeg")
    expect(sendJobCount(h)).toBe(0)
  })

  test("the same audio without voiceNote is sent as ordinary audio", async () => {
    const { key, phone } = await setup()
    await send(h, key, { fromPhoneId: phone.id, to: TO, mediaUrls: [MP3] })
    await h.settle()
    const [part] = h.gateway.sentBy(phone.id)
    expect(part!.media).toMatchObject({ kind: "audio", mimetype: "audio/mpeg" })
    expect(part!.media!.voiceNote).toBeUndefined()
  })
})
