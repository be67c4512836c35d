import { describe, expect, test } from "bun:test"
import { randomBytes } from "node:crypto"
import { getMediaKeys } from "@whiskeysockets/baileys"
import { mapInboundActions } from "../../src/whatsapp/baileys/inbound-actions"
import { mapContact, mapDetails, mapLocation, parseDescriptor, parseVcard, safeFileName } from "../../src/whatsapp/baileys/inbound-details"
import { mapInboundUpsert } from "../../src/whatsapp/baileys/mapping"
import { expandMediaKey } from "../../src/whatsapp/baileys/media-download"

/*
 * The richer inbound fields and the reactions, edits and revokes, read from Baileys' payload
 * shapes (proto.IMessage as decoded; bytes as Uint8Array, Longs as {low, high}).
 */

const KEY = { remoteJid: "15550002222@s.whatsapp.net", id: "3EB0AAAA", participant: null }
const noLid = async () => null

describe("vCards become contacts", () => {
  test.each([
    [
      "WhatsApp's own card: waid names the number, escapes are undone",
      "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada\\, Countess\r\nORG:Engines\\; Ltd;R&D\r\nTEL;type=CELL;waid=14155550199:+1 415-555-0199\r\nEMAIL:ada@example.com\r\nEND:VCARD",
      { name: "Ada, Countess", phoneNumbers: ["+14155550199"], organization: "Engines; Ltd", email: "ada@example.com" },
    ],
    [
      "numbers without waid count when written in international form; local ones are left out; duplicates once",
      "BEGIN:VCARD\nFN:Bob\nTEL:+44 20 7946 0958\nTEL:020 7946 0958\nitem1.TEL;waid=442079460958:+44 20 7946 0958\nEND:VCARD",
      { name: "Bob", phoneNumbers: ["+442079460958"] },
    ],
    ["folded lines are unfolded", "BEGIN:VCARD\nFN:Very Long\n  Name\nEND:VCARD", { name: "Very Long Name", phoneNumbers: [] }],
    ["control characters in a name are escaped", "FN:Eve\u001b[31m", { name: "Eve\\x1b[31m", phoneNumbers: [] }],
  ])("%s", (_label, vcard, expected) => {
    expect(parseVcard(vcard)).toEqual(expected)
  })

  test("a card without FN takes the display name; none at all is no contact", () => {
    expect(parseVcard("BEGIN:VCARD\nTEL;waid=15550003333:+1 555 000 3333\nEND:VCARD", "Carol")).toEqual({ name: "Carol", phoneNumbers: ["+15550003333"] })
    expect(parseVcard("BEGIN:VCARD\nEND:VCARD")).toBeNull()
  })

  test("a contacts array gives its first card", () => {
    expect(mapContact({ contactsArrayMessage: { contacts: [{ vcard: "FN:First" }, { vcard: "FN:Second" }] } })).toEqual({ name: "First", phoneNumbers: [] })
  })
})

describe("locations", () => {
  test.each([
    [{ degreesLatitude: 52.52, degreesLongitude: 13.405, name: "Gate", address: "Pariser Platz" }, { latitude: 52.52, longitude: 13.405, name: "Gate", address: "Pariser Platz" }],
    [{ degreesLatitude: -33.9, degreesLongitude: 151.2 }, { latitude: -33.9, longitude: 151.2 }],
    [{ degreesLatitude: 91, degreesLongitude: 0 }, null],
    [{ degreesLongitude: 10 }, null],
  ])("%j → %j", (input, expected) => {
    expect(mapLocation(input)).toEqual(expected)
  })
})

describe("media descriptors", () => {
  const mediaKey = new Uint8Array(randomBytes(32))

  test("a document keeps what the API shows and what a later download needs", () => {
    const media = mapDetails(
      {
        documentMessage: {
          url: "https://mmg.whatsapp.net/v/t62/x.enc?oh=1",
          directPath: "/v/t62/x.enc?oh=1",
          mediaKey,
          fileSha256: new Uint8Array([1, 2]),
          fileEncSha256: new Uint8Array([3, 4]),
          fileLength: { low: 5_000_000, high: 0 },
          mimetype: "application/pdf",
          fileName: "../../etc/in\u202Evoice.pdf",
          contextInfo: { stanzaId: "3EB0QUOTED" },
        },
      },
      KEY,
    )
    expect(media.quotedWaMessageId).toBe("3EB0QUOTED")
    expect(media.media).toMatchObject({ mimetype: "application/pdf", sizeBytes: 5_000_000, fileName: "in_voice.pdf", capKind: "document" })
    const descriptor = parseDescriptor(media.media!.descriptor)
    expect(descriptor).toMatchObject({ hkdf: "document", field: "documentMessage", directPath: "/v/t62/x.enc?oh=1", key: { ...KEY } })
    expect(Buffer.from(descriptor.mediaKey, "base64").equals(Buffer.from(mediaKey))).toBe(true)
  })

  test("a sticker is capped as an image; a bad mimetype falls back to the kind's; no key or path is no media", () => {
    const sticker = mapDetails({ stickerMessage: { directPath: "/s", mediaKey, mimetype: "bogus" } }, KEY).media!
    expect(sticker).toMatchObject({ capKind: "image", mimetype: "image/webp", fileName: null })
    expect(mapDetails({ imageMessage: { directPath: "/i" } }, KEY).media).toBeNull()
    expect(mapDetails({ imageMessage: { mediaKey, url: "https://elsewhere/x" } }, KEY).media).toBeNull()
  })

  test("the media keys expand as Baileys expands them, for every kind", async () => {
    for (const kind of ["image", "video", "audio", "document", "sticker"] as const) {
      const ours = expandMediaKey(mediaKey, kind)
      const theirs = await getMediaKeys(mediaKey, kind)
      expect([ours.iv, ours.cipherKey, ours.macKey].map((b) => Buffer.from(b).toString("hex"))).toEqual(
        [theirs.iv, theirs.cipherKey, theirs.macKey!].map((b) => Buffer.from(b).toString("hex")),
      )
    }
  })

  test("file names are made safe: last segment, no controls or bidi overrides, no leading dots", () => {
    expect(safeFileName("C:\\Users\\x\\..report.pdf")).toBe("report.pdf")
    expect(safeFileName("a\u0000b\u202Ec.txt")).toBe("a_b_c.txt")
    expect(safeFileName("...")).toBeNull()
  })
})

describe("inbound upserts carry their details", () => {
  test("a quoted text reply names the quoted id; a location and a contact map to their shapes", async () => {
    const upsert = {
      type: "notify",
      messages: [
        { key: { ...KEY, id: "A1", fromMe: false }, messageTimestamp: 1_700_000_000, message: { extendedTextMessage: { text: "yes", contextInfo: { stanzaId: "Q1" } } } },
        { key: { ...KEY, id: "A2", fromMe: false }, messageTimestamp: 1_700_000_000, message: { locationMessage: { degreesLatitude: 1, degreesLongitude: 2, name: "Here" } } },
        { key: { ...KEY, id: "A3", fromMe: false }, messageTimestamp: 1_700_000_000, message: { contactMessage: { displayName: "Ada", vcard: "FN:Ada\nTEL;waid=14155550199:+1" } } },
      ],
    }
    const [reply, location, contact] = await mapInboundUpsert(upsert as never, { pnForLid: noLid, nowMs: 0 })
    expect(reply!.details).toMatchObject({ quotedWaMessageId: "Q1", media: null, location: null, contact: null })
    expect(location).toMatchObject({ type: "location", content: "Here", details: { location: { latitude: 1, longitude: 2, name: "Here" } } })
    expect(contact).toMatchObject({ type: "contact", details: { contact: { name: "Ada", phoneNumbers: ["+14155550199"] } } })
  })
})

describe("reactions, edits and revokes", () => {
  const at = 1_700_000_000
  const from = { ...KEY, fromMe: false }
  const upsert = (messages: unknown[]) => ({ type: "notify", messages }) as never

  test("each maps to its action with the sender and the target; plain messages map to none", async () => {
    const actions = await mapInboundActions(
      upsert([
        { key: { ...from, id: "R1" }, messageTimestamp: at, message: { reactionMessage: { key: { id: "OURS", fromMe: true }, text: "👍", senderTimestampMs: { low: 1_700_000_000_123 % 2 ** 32, high: Math.floor(1_700_000_000_123 / 2 ** 32) } } } },
        { key: { ...from, id: "R2" }, messageTimestamp: at, message: { reactionMessage: { key: { id: "THEIRS", fromMe: false }, text: "" } } },
        { key: { ...from, id: "E1" }, messageTimestamp: at, message: { editedMessage: { message: { protocolMessage: { type: 14, key: { id: "THEIRS" }, editedMessage: { conversation: "fixed" }, timestampMs: 1_700_000_001_000 } } } } },
        { key: { ...from, id: "D1" }, messageTimestamp: at, message: { protocolMessage: { type: 0, key: { id: "THEIRS" } } } },
        { key: { ...from, id: "X1" }, messageTimestamp: at, message: { protocolMessage: { type: 3, key: { id: "THEIRS" } } } },
        { key: { ...from, id: "T1" }, messageTimestamp: at, message: { conversation: "hi" } },
        { key: { ...KEY, id: "M1", fromMe: true }, messageTimestamp: at, message: { reactionMessage: { key: { id: "THEIRS" }, text: "❤️" } } },
      ]),
      { pnForLid: noLid, nowMs: 1_800_000_000_000 },
    )
    expect(actions).toEqual([
      { kind: "reaction", targetWaMessageId: "OURS", targetFromMe: true, from: "+15550002222", emoji: "👍", atMs: 1_700_000_000_123 },
      { kind: "reaction", targetWaMessageId: "THEIRS", targetFromMe: false, from: "+15550002222", emoji: "", atMs: at * 1000 },
      { kind: "edit", targetWaMessageId: "THEIRS", from: "+15550002222", content: "fixed", atMs: 1_700_000_001_000 },
      { kind: "revoke", targetWaMessageId: "THEIRS", from: "+15550002222", atMs: at * 1000 },
    ])
  })

  test("a sender's time in the future is clamped to now", async () => {
    const [action] = await mapInboundActions(upsert([{ key: { ...from, id: "D2" }, messageTimestamp: at, message: { protocolMessage: { type: 0, key: { id: "Z" }, timestampMs: 9_999_999_999_999 } } }]), {
      pnForLid: noLid,
      nowMs: 1_800_000_000_000,
    })
    expect(action!.atMs).toBe(1_800_000_000_000)
  })
})
