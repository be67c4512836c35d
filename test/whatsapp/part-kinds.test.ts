import { describe, expect, test } from "bun:test"
import { generateWAMessageFromContent, proto } from "@whiskeysockets/baileys"
import { kindContent, quotedMessage, sendOptions, userJidOf, withMentions } from "../../src/whatsapp/baileys/part-kinds"
import { mediaMessageContent } from "../../src/whatsapp/baileys/media-message"
import { partContent } from "../../src/whatsapp/baileys/session"
import type { OutboundPart } from "../../src/whatsapp/gateway"

/* The port's replies, mentions, locations, contact cards and voice notes in Baileys' words. */

const TO = "14155550199@s.whatsapp.net"
const base: OutboundPart = { waMessageId: "3EB0AAAAAAAAAAAAAAAAAA", toJid: TO }
const NOW_MS = 1_700_000_000_000
/** What an upload came to; the fields are opaque to these tests. */
const UPLOADED = {
  mediaKey: Buffer.alloc(32, 1),
  fileSha256: Buffer.alloc(32, 2),
  fileEncSha256: Buffer.alloc(32, 3),
  fileLength: 3,
  url: "https://mmg.example/v/1.enc",
  directPath: "/v/1.enc",
}

describe("Baileys content of the new kinds of part", () => {
  test.each([
    { name: "an E.164 number becomes a phone-number JID", address: "+14155550111", jid: "14155550111@s.whatsapp.net" },
    { name: "a hidden number's LID JID stays as it is", address: "123456789012345@lid", jid: "123456789012345@lid" },
  ])("userJidOf: $name", ({ address, jid }) => {
    expect(userJidOf(address)).toBe(jid)
  })

  test("a location becomes Baileys' location with degrees, name and address", () => {
    expect(partContent({ ...base, location: { latitude: 1.5, longitude: -2.25, name: "Shop", address: "Main St 1" } })).toEqual({
      location: { degreesLatitude: 1.5, degreesLongitude: -2.25, name: "Shop", address: "Main St 1" },
    })
    expect(kindContent({ ...base, location: { latitude: 0, longitude: 0 } })).toEqual({ location: { degreesLatitude: 0, degreesLongitude: 0 } })
  })

  test("a contact card becomes one contact with its display name and vCard", () => {
    const vcard = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Bo\r\nEND:VCARD"
    expect(partContent({ ...base, contact: { displayName: "Bo", vcard } })).toEqual({ contacts: { displayName: "Bo", contacts: [{ displayName: "Bo", vcard }] } })
  })

  test("a voice note is audio with ptt; ordinary audio has none", () => {
    const media = { kind: "audio" as const, path: "/tmp/note.ogg", sizeBytes: 3, mimetype: "audio/ogg; codecs=opus" }
    const note = mediaMessageContent({ proto }, { ...base, media: { ...media, voiceNote: true } }, UPLOADED, {}, NOW_MS).audioMessage!
    expect(note).toMatchObject({ mimetype: "audio/ogg; codecs=opus", ptt: true })
    expect(mediaMessageContent({ proto }, { ...base, media }, UPLOADED, {}, NOW_MS).audioMessage!.ptt).toBeFalsy()
  })

  test("mentions are added as JIDs to text and to a caption; none leaves the content as it is", () => {
    expect(partContent({ ...base, text: "@14155550111 hi", mentions: ["+14155550111"] })).toEqual({ text: "@14155550111 hi", mentions: ["14155550111@s.whatsapp.net"] })
    const image = { kind: "image" as const, path: "/tmp/a.png", sizeBytes: 3, mimetype: "image/png", caption: "look @14155550111" }
    const sent = mediaMessageContent({ proto }, { ...base, media: image, mentions: ["+14155550111"] }, UPLOADED, {}, NOW_MS).imageMessage!
    expect(sent.caption).toBe("look @14155550111")
    expect(sent.contextInfo?.mentionedJid).toEqual(["14155550111@s.whatsapp.net"])
    expect(withMentions({ text: "x" }, { ...base, mentions: [] })).toEqual({ text: "x" })
  })
})

describe("the quoted message of a reply", () => {
  test("a received message is quoted by its id and its sender, with the text wagate recorded", async () => {
    const part: OutboundPart = { ...base, text: "yes", quote: { waMessageId: "WAID-1", fromMe: false, from: "+14155550199", text: "is it shipped?" } }
    const options = await sendOptions(part, async () => {
      throw new Error("a received message is never looked up in the resend store")
    })
    expect(options).toEqual({
      messageId: base.waMessageId,
      quoted: { key: { remoteJid: TO, fromMe: false, id: "WAID-1", participant: TO }, message: { conversation: "is it shipped?" } },
    })
  })

  test("one of ours is quoted as it was sent when the resend store holds it, else by its text", async () => {
    const stored = proto.Message.create({ extendedTextMessage: { text: "shipped" } })
    const part: OutboundPart = { ...base, text: "tracking", quote: { waMessageId: "3EB0OURS", fromMe: true, text: "shipped" } }
    expect((await sendOptions(part, async (id) => (id === "3EB0OURS" ? stored : undefined))).quoted).toEqual({
      key: { remoteJid: TO, fromMe: true, id: "3EB0OURS" },
      message: stored,
    })
    expect((await sendOptions(part, async () => undefined)).quoted!.message).toEqual({ conversation: "shipped" })
    expect(await sendOptions({ ...base, text: "plain" }, async () => undefined)).toEqual({ messageId: base.waMessageId })
  })

  test("Baileys turns it into WhatsApp's quoted context: stanzaId, participant and quotedMessage", () => {
    const quoted = quotedMessage({ waMessageId: "WAID-1", fromMe: false, from: "+14155550199", text: "is it shipped?" }, TO, undefined)
    const message = generateWAMessageFromContent(TO, { extendedTextMessage: { text: "yes" } }, { userJid: "14155550100@s.whatsapp.net", quoted })
    expect(message.message?.extendedTextMessage?.contextInfo).toMatchObject({ stanzaId: "WAID-1", participant: TO, quotedMessage: { conversation: "is it shipped?" } })
  })
})
