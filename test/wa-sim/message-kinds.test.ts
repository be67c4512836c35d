import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { proto } from "@whiskeysockets/baileys"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { readMessageKinds } from "./message-kinds"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* The simulator reads a decrypted message's quote, mentions, location, contact and voice-note flag as an app would. */

const cases: { name: string; message: proto.IMessage; kinds: unknown }[] = [
  { name: "plain text carries nothing more", message: { conversation: "hi" }, kinds: {} },
  {
    name: "a reply: stanzaId, participant, remoteJid and quotedMessage from the text's contextInfo",
    message: {
      extendedTextMessage: {
        text: "yes",
        contextInfo: { stanzaId: "WAID-1", participant: "1555@s.whatsapp.net", remoteJid: "1666@s.whatsapp.net", quotedMessage: { conversation: "?" } },
      },
    },
    kinds: { quote: { stanzaId: "WAID-1", participant: "1555@s.whatsapp.net", remoteJid: "1666@s.whatsapp.net", quotedMessage: proto.Message.create({ conversation: "?" }) } },
  },
  {
    name: "mentions on a caption",
    message: { imageMessage: { caption: "@1555", contextInfo: { mentionedJid: ["1555@s.whatsapp.net"] } } },
    kinds: { mentions: ["1555@s.whatsapp.net"] },
  },
  {
    name: "a location with its name and address",
    message: { locationMessage: { degreesLatitude: -1.5, degreesLongitude: 2, name: "Shop", address: "Main St" } },
    kinds: { location: { latitude: -1.5, longitude: 2, name: "Shop", address: "Main St" } },
  },
  { name: "a contact card", message: { contactMessage: { displayName: "Bo", vcard: "BEGIN:VCARD" } }, kinds: { contact: { displayName: "Bo", vcard: "BEGIN:VCARD" } } },
  { name: "push-to-talk audio is a voice note", message: { audioMessage: { ptt: true } }, kinds: { voiceNote: true } },
  { name: "other audio is not", message: { audioMessage: { mimetype: "audio/mpeg" } }, kinds: { voiceNote: false } },
]

describe("readMessageKinds", () => {
  test.each(cases)("$name", ({ message, kinds }) => {
    // Decoded from the wire, as a contact's copy is.
    const decoded = proto.Message.decode(proto.Message.encode(message).finish())
    expect(JSON.parse(JSON.stringify(readMessageKinds(decoded)))).toEqual(JSON.parse(JSON.stringify(kinds)))
  })
})
