import type { AnyMessageContent, MiscMessageGenerationOptions, proto, WAMessage } from "@whiskeysockets/baileys"
import type { OutboundPart, QuotedPart } from "../gateway"

/*
 * The port's replies, mentions, locations and contact cards in Baileys' words (pure, apart from
 * the stored message a reply to one of our own parts quotes). Baileys builds WhatsApp's
 * `contextInfo` from them: `stanzaId`, `participant` and `quotedMessage` from the `quoted`
 * option, `mentionedJid` from `mentions` (lib/Utils/messages.js, generateWAMessageFromContent
 * and generateWAMessageContent in 7.0.0-rc14).
 */

/** A user's JID from the port's words: E.164 becomes a phone-number JID, a `…@lid` JID stays. */
export function userJidOf(address: string): string {
  return address.startsWith("+") ? `${address.slice(1)}@s.whatsapp.net` : address
}

/** The Baileys content of a part that is a location, a contact card or a poll, or null for text and media. */
export function kindContent(part: OutboundPart, pollSecret?: Uint8Array): AnyMessageContent | null {
  if (part.location) {
    const { latitude, longitude, name, address } = part.location
    return { location: { degreesLatitude: latitude, degreesLongitude: longitude, ...(name ? { name } : {}), ...(address ? { address } : {}) } }
  }
  if (part.contact) return { contacts: { displayName: part.contact.displayName, contacts: [{ displayName: part.contact.displayName, vcard: part.contact.vcard }] } }
  // A selectable count of 1 is a single-answer poll (Baileys sends pollCreationMessageV3, as the
  // apps do); 0 lets a voter choose any number. The poll's messageSecret is the one stored for
  // its WhatsApp id before it went out (docs/live-whatsapp.md § "Poll votes").
  if (part.poll) {
    return { poll: { name: part.poll.question, values: part.poll.options, selectableCount: part.poll.multipleAnswers ? 0 : 1, ...(pollSecret ? { messageSecret: pollSecret } : {}) } }
  }
  return null
}

/** The content with the part's mentions, as JIDs. */
export function withMentions(content: AnyMessageContent, part: OutboundPart): AnyMessageContent {
  if (!part.mentions || part.mentions.length === 0) return content
  return { ...content, mentions: part.mentions.map(userJidOf) } as AnyMessageContent
}

/**
 * The message Baileys quotes for a reply: the key WhatsApp's apps find the original by (its id,
 * the chat, who wrote it) and the original's content. For one of our own parts that is the
 * message as it was sent, from the resend store when it still holds it (`stored`); otherwise,
 * and for a received message, the text wagate recorded, which apps show when they do not have
 * the original.
 */
export function quotedMessage(quote: QuotedPart, chatJid: string, stored: proto.IMessage | undefined): WAMessage {
  const key = { remoteJid: chatJid, fromMe: quote.fromMe, id: quote.waMessageId, ...(quote.from ? { participant: userJidOf(quote.from) } : {}) }
  return { key, message: stored ?? { conversation: quote.text } }
}

/** The send options of a part: its WhatsApp id and, for a reply, the quoted message. */
export async function sendOptions(
  part: OutboundPart,
  loadOwn: (waMessageId: string) => Promise<proto.IMessage | undefined>,
): Promise<MiscMessageGenerationOptions & { messageId: string }> {
  if (!part.quote) return { messageId: part.waMessageId }
  const stored = part.quote.fromMe ? await loadOwn(part.quote.waMessageId) : undefined
  return { messageId: part.waMessageId, quoted: quotedMessage(part.quote, part.toJid, stored) }
}
