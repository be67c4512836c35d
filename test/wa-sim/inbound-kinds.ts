import { proto } from "@whiskeysockets/baileys"
import type { InboundContent } from "./inbound"

/*
 * The messages a contact's phone writes beyond text and attachments, as `proto.IMessage`: a
 * quoted reply, a reaction, an edit, a deletion for everyone, a location and a contact card.
 * README.md ("Replies, reactions, edits, deletions, locations and contacts") names the sources.
 */

/** The message a reaction, edit or deletion points at, from the writing contact's point of view. */
export interface TargetKey {
  /** The chat as the contact sees it: the paired account's JID in a 1:1 chat, or the group. */
  remoteJid: string
  id: string
  /** True when the contact wrote the target itself. */
  fromMe: boolean
  participant?: string
}

/** A text that quotes an earlier message (WhatsApp's "reply"). */
export function quotedReply(text: string, quoted: { id: string; participant: string; text: string }): InboundContent {
  return { message: { extendedTextMessage: { text, contextInfo: { stanzaId: quoted.id, participant: quoted.participant, quotedMessage: { conversation: quoted.text } } } } }
}

/** A reaction; an empty emoji takes it back. */
export function reaction(target: TargetKey, emoji: string, atMs: number): InboundContent {
  return { message: { reactionMessage: { key: target, text: emoji, senderTimestampMs: atMs } } }
}

/** An edit of the contact's own text, wrapped as WhatsApp's apps send it. */
export function edit(target: TargetKey, text: string, atMs: number): InboundContent {
  const protocolMessage = { key: target, type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT, editedMessage: { conversation: text }, timestampMs: atMs }
  return { message: { editedMessage: { message: { protocolMessage } } } }
}

/** A deletion for everyone of the contact's own message. */
export function revoke(target: TargetKey): InboundContent {
  return { message: { protocolMessage: { key: target, type: proto.Message.ProtocolMessage.Type.REVOKE } } }
}

export function location(place: { latitude: number; longitude: number; name?: string; address?: string }): InboundContent {
  return { message: { locationMessage: { degreesLatitude: place.latitude, degreesLongitude: place.longitude, name: place.name, address: place.address } } }
}

/** RFC 6350 escaping of a text value. */
function vcardText(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/,/g, "\\,").replace(/;/g, "\\;").replace(/\n/g, "\\n")
}

/** A contact card with the vCard WhatsApp's apps write (`TEL;…;waid=<digits>:+<number>`). */
export function contactCard(card: { name: string; phoneNumbers: string[]; organization?: string; email?: string }): InboundContent {
  const lines = ["BEGIN:VCARD", "VERSION:3.0", `FN:${vcardText(card.name)}`]
  if (card.organization) lines.push(`ORG:${vcardText(card.organization)};`)
  for (const n of card.phoneNumbers) lines.push(`TEL;type=CELL;type=VOICE;waid=${n.replace(/\D/g, "")}:${n}`)
  if (card.email) lines.push(`EMAIL:${vcardText(card.email)}`)
  lines.push("END:VCARD")
  return { message: { contactMessage: { displayName: card.name, vcard: lines.join("\n") } } }
}
