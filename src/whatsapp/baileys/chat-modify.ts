import type { ChatModification as BaileysChatModification, WASocket } from "@whiskeysockets/baileys"
import type { ChatModification, WaMessageRef } from "../gateway"

/*
 * Chat changes written to WhatsApp's app state (docs/api.md § "Chats and contacts") through
 * Baileys 7.0.0-rc14's chatModify (lib/Socket/chats.js, lib/Utils/chat-utils.js
 * chatModificationToAppPatch): one patch per field, in the order archive, pin, mute, read. An
 * archive or a read mark names the chat's newest message, as WhatsApp's own clients do.
 */

type Sock = Pick<WASocket, "chatModify">

/** The newest message as chatModify's `lastMessages` names it. */
function lastMessages(last: { ref: WaMessageRef; atMs: number } | null) {
  if (!last) return []
  const key = { remoteJid: last.ref.chatJid, id: last.ref.waMessageId, fromMe: last.ref.fromMe, participant: last.ref.authorJid }
  return [{ key, messageTimestamp: Math.floor(last.atMs / 1000) }]
}

export async function modifyChat(sock: Sock, chatJid: string, change: ChatModification, last: { ref: WaMessageRef; atMs: number } | null): Promise<void> {
  const mods: BaileysChatModification[] = []
  if (change.archived !== undefined) mods.push({ archive: change.archived, lastMessages: lastMessages(last) })
  if (change.pinned !== undefined) mods.push({ pin: change.pinned })
  if (change.mutedUntilMs !== undefined) mods.push({ mute: change.mutedUntilMs })
  if (change.unread !== undefined) mods.push({ markRead: !change.unread, lastMessages: lastMessages(last) })
  for (const mod of mods) await sock.chatModify(mod, chatJid)
}
