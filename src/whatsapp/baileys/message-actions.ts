import type { AnyMessageContent, WAMessageKey } from "@whiskeysockets/baileys"
import type { WaMessageRef } from "../gateway"

/*
 * Reactions, edits, revokes and read receipts in Baileys' terms, as pure functions. Each names
 * its target by the key WhatsApp knows the message by: the chat, the id, whether this phone wrote
 * it, and in a group the author of someone else's message.
 *
 * - A reaction is a `reactionMessage` carrying the target's key and the emoji (`""` removes ours).
 * - An edit is a `protocolMessage` of type MESSAGE_EDIT with the target's key and the new text;
 *   Baileys marks the stanza `edit="1"`. The text replaces a caption too.
 * - A revoke is a `protocolMessage` of type REVOKE with the target's key; Baileys marks the stanza
 *   `edit="7"` (the sender deletes its own message).
 * - A read receipt is `<receipt type="read">` to the chat, naming the ids (Baileys' `readMessages`,
 *   which sends `read-self` instead when the account hides its read receipts).
 */

/** Baileys' key of a message. */
export function waKeyOf(ref: WaMessageRef): WAMessageKey {
  return {
    remoteJid: ref.chatJid,
    id: ref.waMessageId,
    fromMe: ref.fromMe,
    ...(ref.authorJid !== undefined && !ref.fromMe ? { participant: ref.authorJid } : {}),
  }
}

export function reactionContent(target: WaMessageRef, emoji: string): AnyMessageContent {
  return { react: { text: emoji, key: waKeyOf(target) } }
}

export function editContent(target: WaMessageRef, text: string): AnyMessageContent {
  return { text, edit: waKeyOf(target) }
}

export function revokeContent(target: WaMessageRef): AnyMessageContent {
  return { delete: waKeyOf(target) }
}
