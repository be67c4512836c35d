import type { proto } from "@whiskeysockets/baileys"

/*
 * What a recipient's app reads from a decrypted message beyond its text and media: the quoted
 * context of a reply, the people it mentions, a location, a contact card, and whether an audio is
 * a voice note. The fields are WhatsApp's own (WAProto.proto, the `ContextInfo`,
 * `LocationMessage`, `ContactMessage` and `AudioMessage.ptt` messages Baileys ships); the README
 * cites where each comes from.
 */

/** The quoted context of a reply, as `contextInfo` carries it. */
export interface QuotedContext {
  /** The quoted message's id. */
  stanzaId: string
  /** Who wrote the quoted message. */
  participant?: string
  /** The chat of the quoted message, set only when it is not this chat. */
  remoteJid?: string
  /** The quoted message's content, as the sender's app copied it. */
  quotedMessage?: proto.IMessage
}

/** What a message carries besides its text and media. */
export interface MessageKinds {
  quote?: QuotedContext
  /** `contextInfo.mentionedJid`. */
  mentions?: string[]
  location?: { latitude: number; longitude: number; name?: string; address?: string }
  contact?: { displayName: string; vcard: string }
  /** An audio message sent as push-to-talk (`audioMessage.ptt`). */
  voiceNote?: boolean
}

/** The `contextInfo` of whichever content the message holds (every content message may carry one). */
function contextOf(message: proto.IMessage): proto.IContextInfo | undefined {
  for (const value of Object.values(message)) {
    if (value && typeof value === "object" && "contextInfo" in value && value.contextInfo) return value.contextInfo as proto.IContextInfo
  }
  return undefined
}

/** Reads a decrypted, unwrapped message the way a recipient's app would. */
export function readMessageKinds(message: proto.IMessage): MessageKinds {
  const kinds: MessageKinds = {}
  const context = contextOf(message)
  if (context?.stanzaId) {
    kinds.quote = {
      stanzaId: context.stanzaId,
      ...(context.participant ? { participant: context.participant } : {}),
      ...(context.remoteJid ? { remoteJid: context.remoteJid } : {}),
      ...(context.quotedMessage ? { quotedMessage: context.quotedMessage } : {}),
    }
  }
  if (context?.mentionedJid && context.mentionedJid.length > 0) kinds.mentions = [...context.mentionedJid]
  const location = message.locationMessage
  if (location) {
    kinds.location = {
      latitude: location.degreesLatitude ?? 0,
      longitude: location.degreesLongitude ?? 0,
      ...(location.name ? { name: location.name } : {}),
      ...(location.address ? { address: location.address } : {}),
    }
  }
  const contact = message.contactMessage
  if (contact) kinds.contact = { displayName: contact.displayName ?? "", vcard: contact.vcard ?? "" }
  if (message.audioMessage) kinds.voiceNote = message.audioMessage.ptt === true
  return kinds
}
