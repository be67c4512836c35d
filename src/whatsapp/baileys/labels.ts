import type { WASocket } from "@whiskeysockets/baileys"
import type { BaileysModule } from "./auth-state"

/*
 * WhatsApp Business labels written to WhatsApp's app state (docs/api.md § "Labels") through
 * Baileys 7.0.0-rc14 (lib/Socket/chats.js addLabel, addChatLabel, removeChatLabel; lib/Utils/
 * chat-utils.js chatModificationToAppPatch): a `labelEditAction` under `["label_edit", id]` and a
 * `labelAssociationAction` under `["label_jid", labelId, chatJid]`, both in the `regular`
 * collection, as whatsmeow's appstate/encode.go BuildLabelEdit and BuildLabelChat write them.
 */

type Sock = Pick<WASocket, "addLabel" | "addChatLabel" | "removeChatLabel" | "authState">

/**
 * Whether the paired phone runs the WhatsApp Business app: the `platform` of the pairing's
 * `pair-success` (Baileys keeps it as `creds.platform`) is `smba` or `smbi` there (Baileys'
 * lib/Utils/generics.js isWABusinessPlatform).
 */
export function isBusinessAccount(sock: Pick<Sock, "authState">, baileys: Pick<BaileysModule, "isWABusinessPlatform">): boolean {
  return baileys.isWABusinessPlatform(sock.authState.creds.platform ?? "")
}

export async function writeLabel(sock: Sock, label: { labelId: string; name: string; color: number }): Promise<void> {
  // The jid is unused for a label edit (its index names no chat); Baileys' signature asks for one.
  await sock.addLabel("", { id: label.labelId, name: label.name, color: label.color, deleted: false })
}

export async function labelChat(sock: Sock, chatJid: string, labelId: string, labeled: boolean): Promise<void> {
  if (labeled) await sock.addChatLabel(chatJid, labelId)
  else await sock.removeChatLabel(chatJid, labelId)
}
