import { afterEach, describe, expect, test } from "bun:test"
import { waMessageIdFor } from "../../src/domain/wa-ids"
import { createHarness, type Harness } from "../helpers/harness"
import { eventsOf, getMessage, iso, liveTenant, mediaFixtures, partsOf, recordEvents, send, sendJobCount } from "./live-helpers"

/*
 * API-DECISIONS §7: each media URL becomes its own WhatsApp message, downloaded by wagate;
 * `content` is the caption of the first image/video/document, or a separate text message when
 * there is none. The message's status is the least advanced of its parts, failed as soon as
 * one part fails.
 */

const TO = "+14155550199"
const JID = "14155550199@s.whatsapp.net"
const IMAGE = "https://media.example.com/photo.jpg"
const DOC = "https://media.example.com/invoice.pdf"
const AUDIO = "https://media.example.com/voice.ogg"
const VIDEO = "https://media.example.com/clip.mp4"
const MISSING = "https://media.example.com/gone.png"

const fixtures = () =>
  mediaFixtures({
    [IMAGE]: { kind: "image", mimetype: "image/jpeg", fileName: "photo.jpg", bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]) },
    [DOC]: { kind: "document", mimetype: "application/pdf", fileName: "invoice.pdf", bytes: new TextEncoder().encode("%PDF-1.7 invoice") },
    [AUDIO]: { kind: "audio", mimetype: "audio/ogg", fileName: "voice.ogg", bytes: new TextEncoder().encode("OggS voice") },
    [VIDEO]: { kind: "video", mimetype: "video/mp4", fileName: "clip.mp4", bytes: new TextEncoder().encode("....ftypmp42") },
  })

let h: Harness
let media: ReturnType<typeof fixtures>
async function setup() {
  media = fixtures()
  h = await createHarness({ fetchMedia: media.fetchMedia })
  return liveTenant(h)
}
afterEach(() => h.close())

describe("multi-part live sends", () => {
  test("two media URLs + content: one WhatsApp message each, in order, the caption on the first image, the bytes wagate downloaded", async () => {
    const { key, phone } = await setup()
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "Your order", mediaUrls: [IMAGE, DOC] })).body.data
    expect(m).toMatchObject({ status: "pending", mediaUrls: [IMAGE, DOC], content: "Your order" })
    await h.settle()
    expect(media.fetched).toEqual([IMAGE, DOC])
    expect(h.gateway.sentBy(phone.id)).toEqual([
      {
        waMessageId: waMessageIdFor(m.id, 0),
        toJid: JID,
        media: { kind: "image", mimetype: "image/jpeg", fileName: "photo.jpg", bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]), caption: "Your order" },
      },
      {
        waMessageId: waMessageIdFor(m.id, 1),
        toJid: JID,
        media: { kind: "document", mimetype: "application/pdf", fileName: "invoice.pdf", bytes: new TextEncoder().encode("%PDF-1.7 invoice"), caption: undefined },
      },
    ])
    expect(partsOf(h, m.id).map((p) => p.mediaUrl)).toEqual([IMAGE, DOC])
  })

  test("the message stays pending until every part is acked, then sent at the last ack; delivered only when every part is delivered", async () => {
    const { account, key, phone } = await setup()
    await recordEvents(h, account.id)
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "c", mediaUrls: [IMAGE, DOC] })).body.data
    await h.settle()
    const [p0, p1] = [waMessageIdFor(m.id, 0), waMessageIdFor(m.id, 1)]
    const t = h.clock.nowMs()
    const session = h.gateway.current(phone.id)

    session.ack(p0, t + 100)
    await h.settle()
    expect((await getMessage(h, key, m.id)).status).toBe("pending")
    expect(sendJobCount(h)).toBe(1)
    session.ack(p1, t + 250)
    await h.settle()
    expect(await getMessage(h, key, m.id)).toMatchObject({ status: "sent", sentAt: iso(t + 250) })
    expect(sendJobCount(h)).toBe(0)

    session.receipt(p1, "delivered", t + 400)
    await h.settle()
    expect((await getMessage(h, key, m.id)).status).toBe("sent")
    session.receipt(p0, "delivered", t + 500)
    await h.settle()
    expect(await getMessage(h, key, m.id)).toMatchObject({ status: "delivered", deliveredAt: iso(t + 500) })
    session.receipt(p0, "read", t + 600)
    await h.settle()
    expect((await getMessage(h, key, m.id)).status).toBe("delivered")
    session.receipt(p1, "read", t + 700)
    await h.settle()
    expect(await getMessage(h, key, m.id)).toMatchObject({ status: "read", readAt: iso(t + 700) })
    expect(eventsOf(h).map((e) => e.event)).toEqual(["message.sent", "message.delivered", "message.read"])
  })

  test("one part rejected fails the message at once, even when the other part was acked", async () => {
    const { key, phone } = await setup()
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "c", mediaUrls: [IMAGE, DOC] })).body.data
    await h.settle()
    const session = h.gateway.current(phone.id)
    session.ack(waMessageIdFor(m.id, 0), h.clock.nowMs())
    session.reject(waMessageIdFor(m.id, 1), { code: "whatsapp_rejected", detail: "479" }, h.clock.nowMs() + 5)
    await h.settle()
    expect(await getMessage(h, key, m.id)).toMatchObject({ status: "failed", errorCode: "whatsapp_rejected", failedAt: iso(h.clock.nowMs() + 5) })
    session.receipt(waMessageIdFor(m.id, 0), "read", h.clock.nowMs() + 10)
    await h.settle()
    expect((await getMessage(h, key, m.id)).status).toBe("failed")
    expect(sendJobCount(h)).toBe(0)
  })

  test("a media download failure fails the message with its errorCode and nothing is sent, not even the parts before it", async () => {
    const { account, key, phone } = await setup()
    await recordEvents(h, account.id)
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "c", mediaUrls: [IMAGE, MISSING] })).body.data
    await h.settle()
    expect(h.gateway.sent).toEqual([])
    const failed = await getMessage(h, key, m.id)
    expect(failed).toMatchObject({ status: "failed", errorCode: "media_fetch_failed", errorMessage: `GET ${MISSING} answered 404` })
    expect(partsOf(h, m.id).map((p) => p.status)).toEqual(["failed", "failed"])
    expect(eventsOf(h).map((e) => e.event)).toEqual(["message.failed"])
  })

  test("every media error code of the fetcher becomes the message's errorCode", async () => {
    h = await createHarness({ fetchMedia: async () => ({ ok: false, errorCode: "media_too_large", message: "larger than 16 MiB" }) })
    const { key, phone } = await liveTenant(h)
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, mediaUrls: [IMAGE] })).body.data
    await h.settle()
    expect(await getMessage(h, key, m.id)).toMatchObject({ status: "failed", errorCode: "media_too_large", errorMessage: "larger than 16 MiB" })
    expect(h.gateway.sent).toEqual([])
  })

  test("audio + content: the text is a separate WhatsApp message (its own part and id), the audio has no caption; both must be acked", async () => {
    const { key, phone } = await setup()
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "Listen", mediaUrls: [AUDIO] })).body.data
    await h.settle()
    const sent = h.gateway.sentBy(phone.id)
    expect(sent.map((p) => p.waMessageId).sort()).toEqual([waMessageIdFor(m.id, 0), waMessageIdFor(m.id, 1)].sort())
    expect(sent.find((p) => p.text !== undefined)).toEqual({ waMessageId: waMessageIdFor(m.id, 1), toJid: JID, text: "Listen" })
    const audio = sent.find((p) => p.media !== undefined)!
    expect(audio.waMessageId).toBe(waMessageIdFor(m.id, 0))
    expect(audio.media).toMatchObject({ kind: "audio", mimetype: "audio/ogg" })
    expect(audio.media!.caption).toBeUndefined()
    expect(partsOf(h, m.id)).toEqual([
      { partIndex: 0, waMessageId: waMessageIdFor(m.id, 0), mediaUrl: AUDIO, status: "pending" },
      { partIndex: 1, waMessageId: waMessageIdFor(m.id, 1), mediaUrl: null, status: "pending" },
    ])

    const session = h.gateway.current(phone.id)
    session.ack(waMessageIdFor(m.id, 0), h.clock.nowMs())
    await h.settle()
    expect((await getMessage(h, key, m.id)).status).toBe("pending")
    session.ack(waMessageIdFor(m.id, 1), h.clock.nowMs())
    await h.settle()
    expect((await getMessage(h, key, m.id)).status).toBe("sent")
  })

  test("audio then video + content: the caption goes on the video, the first captionable media, and no text part is added", async () => {
    const { key, phone } = await setup()
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "Look", mediaUrls: [AUDIO, VIDEO] })).body.data
    await h.settle()
    expect(h.gateway.sentBy(phone.id).map((p) => [p.waMessageId, p.media?.kind, p.media?.caption])).toEqual([
      [waMessageIdFor(m.id, 0), "audio", undefined],
      [waMessageIdFor(m.id, 1), "video", "Look"],
    ])
    expect(partsOf(h, m.id).length).toBe(2)
  })

  test("a media-only send carries no caption and no text part", async () => {
    const { key, phone } = await setup()
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, mediaUrls: [IMAGE] })).body.data
    expect(m.content).toBe("")
    await h.settle()
    const sent = h.gateway.sentBy(phone.id)
    expect(sent.length).toBe(1)
    expect(sent[0]!.media!.caption).toBeUndefined()
    expect(sent[0]!.text).toBeUndefined()
    expect(partsOf(h, m.id).length).toBe(1)
  })

  /** WhatsApp acks part 0 of a two-part send, the socket drops and reconnects; returns what was sent again. */
  async function ackFirstPartThenReconnect(phone: { id: string; phoneNumber: string }, messageId: string) {
    await h.settle()
    const first = h.gateway.current(phone.id)
    first.ack(waMessageIdFor(messageId, 0), h.clock.nowMs())
    await h.settle()
    first.drop("connection_lost")
    await h.settle()
    await h.advance(750)
    h.gateway.current(phone.id).open(phone.phoneNumber)
    await h.settle()
    await h.advance(1_000)
    await h.settle()
    return h.gateway.sentBy(phone.id).slice(2)
  }

  test("after a reconnect only the unacknowledged parts are re-sent, with their ids, and the caption is not repeated", async () => {
    const { key, phone } = await setup()
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "Once", mediaUrls: [IMAGE, DOC] })).body.data
    const resent = await ackFirstPartThenReconnect(phone, m.id)
    expect(resent.map((p) => [p.waMessageId, p.media?.kind, p.media?.caption, p.text])).toEqual([[waMessageIdFor(m.id, 1), "document", undefined, undefined]])
    h.gateway.current(phone.id).ack(waMessageIdFor(m.id, 1), h.clock.nowMs())
    await h.settle()
    expect((await getMessage(h, key, m.id)).status).toBe("sent")
  })

  test("after a reconnect an audio part whose captioned image was acked goes alone: no extra text message", async () => {
    const { key, phone } = await setup()
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "Once", mediaUrls: [IMAGE, AUDIO] })).body.data
    const resent = await ackFirstPartThenReconnect(phone, m.id)
    expect(resent.map((p) => [p.waMessageId, p.media?.kind, p.media?.caption, p.text])).toEqual([[waMessageIdFor(m.id, 1), "audio", undefined, undefined]])
    expect(partsOf(h, m.id).length).toBe(2)
  })
})
