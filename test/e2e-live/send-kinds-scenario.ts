import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { buildVCard } from "../../src/domain/vcard"
import { mp3Bytes, oggOpusBytes } from "../helpers/ogg-opus"
import { SLOW_HOOK_TIMEOUT_MS } from "../helpers/timeouts"
import type { SimContact } from "../wa-sim/contact"
import type { SimGroup } from "../wa-sim/groups"
import type { WaSim } from "../wa-sim/sim"
import { ApiClient, FileHost, poll, WagateProcess } from "./live-world"
import { pairedPhone, startTlsWorld, type TlsWorld } from "./tls-world"

/*
 * Sends beyond text and media (docs/api.md § "Replies, mentions, locations, contact cards and voice notes"), end to end: wagate reaches the
 * simulator over `wss://` through the TLS front, real Baileys encrypts, and the contact decrypts
 * each message and reads it as its app would (test/wa-sim/message-kinds.ts): a location, a
 * contact card, a reply to a received message and to one of ours, mentions in a group, and a
 * voice note. The tests run in order on one simulator and one wagate; the same scenario runs from
 * source (send-kinds-source.test.ts) and as the compiled executable (send-kinds-binary.test.ts).
 */

const ME = "+15550041111"
const ME_JID = "15550041111@s.whatsapp.net"
const TEST_TIMEOUT_MS = 30_000
const PAIRING_TEST_TIMEOUT_MS = 45_000

/**
 * Defines the scenario for one way of running wagate: `prepare` runs first, within
 * `prepareTimeoutMs`, and returns the command line, or undefined for `bun src/main.ts`.
 */
export function describeSendKinds(label: string, prepare: () => Promise<string[] | undefined>, prepareTimeoutMs: number): void {
  let world: TlsWorld
  let sim: WaSim
  let files: FileHost
  let wagate: WagateProcess
  let api: ApiClient
  let phoneId = ""
  let alice: SimContact
  let bob: SimContact
  let team: SimGroup

  beforeAll(async () => {
    world = await startTlsWorld({ command: await prepare(), keyName: "kinds", scopes: ["messages:send", "messages:read", "phone_numbers:read"] })
    ;({ sim, wagate, api } = world)
    files = new FileHost(world.cert)
    alice = sim.contact({ phoneNumber: "+15550042222", name: "Alice" })
    bob = sim.contact({ phoneNumber: "+15550043333", name: "Bob" })
    team = sim.group({ subject: "Support team", members: [alice, bob] })
  }, prepareTimeoutMs + SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await files?.stop()
    await world?.stop()
  }, SLOW_HOOK_TIMEOUT_MS)

  /** Sends from the paired phone and returns the message as the contact decrypted it, once it is read. */
  async function sendAndReceive(to: SimContact, body: Record<string, unknown>, toAddress = `+${to.phoneNumber}`) {
    const message = await api.send({ fromPhoneId: phoneId, to: toAddress, ...body })
    const received = await sim.nextMessage(to, { timeoutMs: 15_000 })
    expect(received.errors).toEqual([])
    return { message, received }
  }

  describe(`replies, mentions, locations, contacts and voice notes through the TLS front, ${label}`, () => {
    test("pairs by QR through the front", async () => {
      phoneId = await pairedPhone(world, ME)
      expect(world.front.wsUrl).toStartWith("wss://")
    }, PAIRING_TEST_TIMEOUT_MS)

    test("a location decrypts as WhatsApp's location message with its coordinates, name and address", async () => {
      const location = { latitude: 52.520008, longitude: 13.404954, name: "Our shop", address: "Alexanderplatz 1, 10178 Berlin" }
      const { message, received } = await sendAndReceive(alice, { location })
      expect(message.type).toBe("location")
      expect(received.kinds.location).toEqual(location)
      expect(received.text).toBeUndefined()
      await api.messageWithStatus(message.id, "read")
    }, TEST_TIMEOUT_MS)

    test("a contact card decrypts as WhatsApp's contact message with the escaped vCard wagate built", async () => {
      const contact = { name: "Acme, Support", phoneNumbers: ["+14155550123", "+447911123456"], organization: "Acme; Inc.", email: "help@acme.example" }
      const { message, received } = await sendAndReceive(alice, { contact })
      expect(message.type).toBe("contact")
      expect(received.kinds.contact).toEqual({ displayName: "Acme, Support", vcard: buildVCard(contact) })
      expect(received.kinds.contact!.vcard).toContain("TEL;type=CELL;type=VOICE;waid=447911123456:+447911123456")
    }, TEST_TIMEOUT_MS)

    test("a reply to a received message quotes it: stanzaId is its WhatsApp id, participant its sender, quotedMessage its text", async () => {
      const waId = await sim.sendInbound(alice, { text: "where is my order?" })
      const inbound = await poll(async () => {
        const res = await api.call("GET", `/messages/inbound?phoneNumberId=${phoneId}&limit=100`)
        return (res.body.data.data as { id: string; content: string }[]).find((m) => m.content === "where is my order?")
      }, "the inbound message")
      const { message, received } = await sendAndReceive(alice, { content: "It ships today", replyTo: inbound.id })
      expect(message.replyTo).toBe(inbound.id)
      expect(received.text).toBe("It ships today")
      expect(received.kinds.quote).toMatchObject({ stanzaId: waId, participant: alice.pnJid, quotedMessage: { conversation: "where is my order?" } })
      expect(received.kinds.quote!.remoteJid).toBeUndefined()
    }, TEST_TIMEOUT_MS)

    test("a reply to one of ours quotes the part as it was sent, from the phone's own JID", async () => {
      const first = await sendAndReceive(alice, { content: "Order 1234 shipped" })
      const { received } = await sendAndReceive(alice, { content: "Tracking number: 1Z999", replyTo: first.message.id })
      expect(received.kinds.quote).toMatchObject({ stanzaId: first.received.id, participant: ME_JID })
      const quoted = received.kinds.quote!.quotedMessage!
      expect(quoted.conversation ?? quoted.extendedTextMessage?.text).toBe("Order 1234 shipped")
    }, TEST_TIMEOUT_MS)

    test("mentions in a group decrypt as mentionedJid for every member", async () => {
      const content = `@${alice.phoneNumber} @${bob.phoneNumber} please check`
      const message = await api.send({ fromPhoneId: phoneId, to: team.jid, content, mentions: [`+${alice.phoneNumber}`, `+${bob.phoneNumber}`] })
      const received = await sim.nextMessage(team, { timeoutMs: 15_000 })
      expect(received.errors).toEqual([])
      expect(received.text).toBe(content)
      expect(received.kinds.mentions).toEqual([alice.pnJid, bob.pnJid])
      expect(received.copies.map((copy) => copy.contact.phoneNumber).sort()).toEqual([alice.phoneNumber, bob.phoneNumber].sort())
      // Both members read it (the contacts' automatic receipts).
      await api.messageWithStatus(message.id, "read")
    }, TEST_TIMEOUT_MS)

    test("an Ogg/Opus voice note decrypts as push-to-talk audio with the exact bytes", async () => {
      const opus = oggOpusBytes()
      const url = files.put("/note.ogg", opus, "audio/ogg")
      const { message, received } = await sendAndReceive(alice, { mediaUrls: [url], voiceNote: true })
      expect(message.type).toBe("media")
      expect(received.kinds.voiceNote).toBe(true)
      expect(received.media).toMatchObject({ kind: "audio", mimetype: "audio/ogg; codecs=opus" })
      expect(received.media!.bytes.equals(Buffer.from(opus))).toBe(true)
    }, TEST_TIMEOUT_MS)

    test("an MP3 sent as a voice note fails with media_unsupported_type; the same MP3 as plain audio arrives without ptt", async () => {
      const url = files.put("/song.mp3", mp3Bytes(), "audio/mpeg")
      const refused = await api.send({ fromPhoneId: phoneId, to: `+${alice.phoneNumber}`, mediaUrls: [url], voiceNote: true })
      const failed = await api.messageWithStatus(refused.id, "failed", 15_000)
      expect(failed.errorCode).toBe("media_unsupported_type")
      const { received } = await sendAndReceive(alice, { mediaUrls: [url] })
      expect(received.media?.kind).toBe("audio")
      expect(received.kinds.voiceNote).toBe(false)
    }, TEST_TIMEOUT_MS)
  })
}
