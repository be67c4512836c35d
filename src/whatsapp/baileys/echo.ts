import type { EchoMessage } from "../gateway"
import { mapDetails, type DetailsContentLike } from "./inbound-details"
import { isGroupJid, isIgnoredJid, mapContent, secondsToMs, senderAddress, STUB_CIPHERTEXT, unwrapContent, WA_STATUS, type PnForLid, type UpsertLike } from "./mapping"

/*
 * Messages the phone (or another linked device of the account) sent itself (docs/live-whatsapp.md
 * § "Messages the phone sends"). Baileys 7.0.0-rc14 (`decodeMessageNode` in
 * lib/Utils/decode-wa-message.js) delivers them as `messages.upsert` with `key.fromMe` set, the
 * contact or group as `remoteJid` and status SERVER_ACK. Baileys' own copy of a send of ours
 * (`emitOwnEvents`) is `fromMe` too but still PENDING, and is skipped here; one whose status a
 * receipt already moved is recognised by the store, which knows our parts' WhatsApp ids.
 * Non-content (reactions, edits, the history-sync notification, app-state key shares, which are
 * protocol messages to our own JID) is not an echo.
 */

/** Maps the echoes of an upsert, in order; `nowMs` stands in for a message without a timestamp. */
export async function mapEchoUpsert(upsert: UpsertLike, ctx: { pnForLid: PnForLid; nowMs: number }): Promise<EchoMessage[]> {
  if (upsert.type !== "notify" && upsert.type !== "append") return []
  const out: EchoMessage[] = []
  for (const msg of upsert.messages) {
    const key = msg.key
    if (!key?.id || !key.fromMe || !key.remoteJid || isIgnoredJid(key.remoteJid)) continue
    if (msg.status === WA_STATUS.PENDING || msg.messageStubType === STUB_CIPHERTEXT || !msg.message) continue
    const mapped = mapContent(msg.message)
    if (!mapped) continue
    const isGroup = isGroupJid(key.remoteJid)
    // In a 1:1 chat the "sender" address of the key is the chat (the contact); a group is its JID.
    const chatId = isGroup ? key.remoteJid : await senderAddress({ remoteJid: key.remoteJid, remoteJidAlt: key.remoteJidAlt }, ctx.pnForLid)
    if (!chatId) continue
    const details = mapDetails(unwrapContent(msg.message) as DetailsContentLike, { remoteJid: key.remoteJid, id: key.id, participant: key.participant })
    out.push({ waMessageId: key.id, chatId, isGroup, type: mapped.type, content: mapped.content, atMs: secondsToMs(msg.messageTimestamp) ?? ctx.nowMs, details })
  }
  return out
}
