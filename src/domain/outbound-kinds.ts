import type { StoreQueries } from "../store/store"
import { type PartRow } from "../store/message-parts"
import { type MessageRow } from "../store/messages"
import type { OutboundPart, QuotedPart } from "../whatsapp/gateway"
import type { MediaDownload } from "./outbound-parts"
import { buildVCard } from "./vcard"

/*
 * What a live message's parts carry beyond text and media
 * (docs/live-whatsapp.md § "Replies, mentions, locations, contacts and voice notes"): the body of a location or contact message,
 * the quoted context of a reply, mentions and the voice-note flag.
 */

/** The body of a part without media: a poll, a location, a contact card, or the text. */
export function bodyOf(message: MessageRow): Pick<OutboundPart, "text" | "location" | "contact" | "poll"> {
  const { location, contact, poll } = message.extras ?? {}
  if (poll) return { poll }
  if (location) return { location }
  if (contact) return { contact: { displayName: contact.name, vcard: buildVCard(contact) } }
  return { text: message.content }
}

/**
 * The message a reply quotes, or null. One of ours is quoted by its first part in send order
 * (the text part, else the first media), which holds the text or the caption. A received message
 * is quoted by its WhatsApp id and its sender. The target was checked when the reply was
 * accepted and rows are never deleted, so it is found; null covers a target that is gone anyway.
 */
export async function quoteOf(q: StoreQueries, message: MessageRow): Promise<QuotedPart | null> {
  const targetId = message.replyTo
  if (targetId === null) return null
  if (targetId.startsWith("inmsg_")) {
    const inbound = await q.findInbound(targetId)
    return inbound ? { waMessageId: inbound.waMessageId, fromMe: false, from: inbound.fromAddress, text: inbound.content } : null
  }
  const target = await q.findMessage(targetId)
  const first = target ? firstPartOf(await q.listParts(targetId)) : undefined
  return target && first ? { waMessageId: first.waMessageId, fromMe: true, text: target.content } : null
}

/** The part of a message that goes first (planParts sends the text part before the media). */
export function firstPartOf(parts: readonly PartRow[]): PartRow | undefined {
  return parts.find((p) => p.mediaUrl === null) ?? parts[0]
}

/**
 * Adds a message's reply context, mentions and voice-note flag to its planned parts: the quote
 * rides on the first part sent, the mentions on the part that carries the text or caption, the
 * flag on the one audio. A part re-sent after a reconnect is decorated the same way.
 */
export function decorateParts(message: MessageRow, parts: OutboundPart[], quote: QuotedPart | null, firstWaMessageId: string | undefined): OutboundPart[] {
  const mentions = message.extras?.mentions
  return parts.map((part) => {
    const out: OutboundPart = { ...part }
    if (quote && part.waMessageId === firstWaMessageId) out.quote = quote
    if (mentions && (part.text !== undefined || part.media?.caption !== undefined)) out.mentions = mentions
    if (message.extras?.voiceNote && out.media?.kind === "audio") out.media = { ...out.media, voiceNote: true }
    return out
  })
}

/** The one Ogg/Opus mimetype WhatsApp plays as a voice note (what the media sniffer names it). */
export const VOICE_NOTE_MIMETYPE = "audio/ogg; codecs=opus"

/**
 * Why a voice note's download cannot be sent as one, or null when it can: WhatsApp's apps play
 * a voice note only as Ogg/Opus, so other audio (or no audio at all) fails the message with
 * `media_unsupported_type` rather than arrive as something else.
 */
export function voiceNoteRefusal(message: MessageRow, downloads: Iterable<MediaDownload & { ok: true }>): string | null {
  if (!message.extras?.voiceNote) return null
  for (const { media } of downloads) {
    if (media.mimetype !== VOICE_NOTE_MIMETYPE) return `A voice note must be Ogg/Opus audio; the URL returned ${media.mimetype}`
  }
  return null
}
