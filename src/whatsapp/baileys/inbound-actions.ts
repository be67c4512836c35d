import type { InboundAction } from "../gateway"
import { isIgnoredJid, mapContent, secondsToMs, senderAddress, STUB_CIPHERTEXT, unwrapContent, type KeyLike, type MessageContentLike, type PnForLid, type UpsertLike, type WaSeconds } from "./mapping"

/*
 * Reactions, edits and deletions for everyone, read from a `messages.upsert`. Baileys delivers
 * them as messages of their own (a `reactionMessage`, a `protocolMessage` of type REVOKE or
 * MESSAGE_EDIT) before it re-emits them as `messages.reaction` / `messages.update`; reading
 * the upsert keeps them in arrival order with the messages they follow.
 */

/** `proto.Message.ProtocolMessage.Type`: the two kinds wagate records. */
export const PROTOCOL_TYPE = { REVOKE: 0, MESSAGE_EDIT: 14 } as const

/** The fields of a reaction the mapping reads. Baileys has already turned `key.fromMe` to our point of view. */
export interface ReactionLike {
  key?: KeyLike | null
  text?: string | null
  senderTimestampMs?: WaSeconds
}

/** The fields of a protocol message the mapping reads. */
export interface ProtocolLike {
  type?: number | null
  key?: KeyLike | null
  editedMessage?: MessageContentLike | null
  timestampMs?: WaSeconds
}

/** Milliseconds as WhatsApp writes them (a Long, a number or a string); null when absent. */
function msOf(value: WaSeconds): number | null {
  const seconds = secondsToMs(value)
  return seconds === null ? null : seconds / 1000
}

/** A time from the sender, never later than now. */
function atOrNow(ms: number | null, nowMs: number): number {
  return ms === null ? nowMs : Math.min(ms, nowMs)
}

/** The longest emoji text kept: one grapheme, however many code points it is made of. */
const MAX_EMOJI_CHARS = 64

/** Maps the reactions, edits and revokes of an upsert; messages from us, broadcasts and undecryptable ones are skipped. */
export async function mapInboundActions(upsert: UpsertLike, ctx: { pnForLid: PnForLid; nowMs: number }): Promise<InboundAction[]> {
  if (upsert.type !== "notify" && upsert.type !== "append") return []
  const out: InboundAction[] = []
  for (const msg of upsert.messages) {
    const key = msg.key
    if (!key?.id || key.fromMe || !key.remoteJid || isIgnoredJid(key.remoteJid)) continue
    if (msg.messageStubType === STUB_CIPHERTEXT || !msg.message) continue
    const content = unwrapContent(msg.message) as (MessageContentLike & { reactionMessage?: ReactionLike | null; protocolMessage?: ProtocolLike | null }) | null
    const reaction = content?.reactionMessage
    const protocol = content?.protocolMessage
    if (!reaction?.key?.id && !protocol?.key?.id) continue
    const from = await senderAddress(key, ctx.pnForLid)
    if (!from) continue
    const sentAtMs = secondsToMs(msg.messageTimestamp)
    if (reaction?.key?.id) {
      const emoji = (reaction.text ?? "").slice(0, MAX_EMOJI_CHARS)
      const atMs = atOrNow(msOf(reaction.senderTimestampMs) ?? sentAtMs, ctx.nowMs)
      out.push({ kind: "reaction", targetWaMessageId: reaction.key.id, targetFromMe: !!reaction.key.fromMe, from, emoji, atMs })
      continue
    }
    const targetWaMessageId = protocol!.key!.id!
    const atMs = atOrNow(msOf(protocol!.timestampMs) ?? sentAtMs, ctx.nowMs)
    const type = protocol!.type ?? PROTOCOL_TYPE.REVOKE
    if (type === PROTOCOL_TYPE.REVOKE) out.push({ kind: "revoke", targetWaMessageId, from, atMs })
    else if (type === PROTOCOL_TYPE.MESSAGE_EDIT) {
      const edited = mapContent(protocol!.editedMessage)
      if (edited) out.push({ kind: "edit", targetWaMessageId, from, content: edited.content, atMs })
    }
  }
  return out
}
