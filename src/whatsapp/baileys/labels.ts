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

/**
 * The chat labels this session wrote whose echo has not come back yet. Baileys tells a device its
 * own patches as if the phone had made them (`emitOwnEvents`, lib/Socket/chats.js appPatch), one
 * `labels.association` per label; the domain records a whole PUT once, so each echo of a write of
 * ours is dropped, once, instead of being recorded label by label with its own `chat.updated`.
 */
export class OwnLabelEchoes {
  /** More writes than this without their echo (Baileys configured not to tell them) forget the oldest. */
  static readonly MAX_PENDING = 256
  private readonly pending: string[] = []

  expect(chatJid: string, labelId: string, labeled: boolean): void {
    this.pending.push(OwnLabelEchoes.key(chatJid, labelId, labeled))
    if (this.pending.length > OwnLabelEchoes.MAX_PENDING) this.pending.shift()
  }

  /** True (once) when the association is the echo of a write of ours. */
  isEcho(chatJid: string, labelId: string, labeled: boolean): boolean {
    const at = this.pending.indexOf(OwnLabelEchoes.key(chatJid, labelId, labeled))
    if (at < 0) return false
    this.pending.splice(at, 1)
    return true
  }

  forget(chatJid: string, labelId: string, labeled: boolean): void {
    this.isEcho(chatJid, labelId, labeled)
  }

  private static key(chatJid: string, labelId: string, labeled: boolean): string {
    return `${chatJid}\u0000${labelId}\u0000${labeled ? "add" : "remove"}`
  }
}

export async function labelChat(sock: Sock, echoes: OwnLabelEchoes, chatJid: string, labelId: string, labeled: boolean): Promise<void> {
  // Noted before the write: Baileys tells the echo before the write's promise settles.
  echoes.expect(chatJid, labelId, labeled)
  try {
    if (labeled) await sock.addChatLabel(chatJid, labelId)
    else await sock.removeChatLabel(chatJid, labelId)
  } catch (err) {
    echoes.forget(chatJid, labelId, labeled)
    throw err
  }
}
