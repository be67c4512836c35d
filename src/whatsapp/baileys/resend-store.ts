import type { WAMessage, WAMessageKey, proto } from "@whiskeysockets/baileys"
import type { BaileysModule } from "./auth-state"
import type { SessionContext } from "./session"

/**
 * What a recipient's retry receipt is answered from. A device that cannot decrypt a message sends
 * `<receipt type="retry">`; Baileys then looks in its own cache of recent sends (512 messages,
 * five minutes, keyed by the jid it sent to) and otherwise asks the app through `getMessage`
 * (WhiskeySockets/Baileys#557). A retry from the recipient's LID for a message sent to its
 * number, after a restart or more than five minutes late misses that cache, so every sent part's
 * message is stored here, per phone, for `waResendRetentionDays` (docs/live-whatsapp.md, "Retry
 * receipts").
 */
export interface ResendStore {
  /** Stores what Baileys sent; never throws, since the part is already on its way. */
  remember(sent: WAMessage | undefined): Promise<void>
  /** Baileys' `getMessage`: the stored message with this id, whichever jid asks. */
  getMessage(key: WAMessageKey): Promise<proto.IMessage | undefined>
}

export function createResendStore(
  ctx: Pick<SessionContext, "store" | "clock" | "logger" | "waResendRetentionDays">,
  phoneId: string,
  baileys: BaileysModule,
): ResendStore {
  const enabled = (ctx.waResendRetentionDays ?? 0) > 0
  return {
    async remember(sent) {
      const waMessageId = sent?.key.id
      if (!enabled || !sent?.message || !waMessageId) return
      try {
        const message = baileys.proto.Message.encode(sent.message).finish()
        const sentAtMs = ctx.clock.nowMs()
        await ctx.store.write(async (q) => await q.saveSentWaMessage({ phoneId, waMessageId, message, sentAtMs }))
      } catch (err) {
        ctx.logger.warn("storing a sent WhatsApp message for retry receipts failed; a recipient that asks for it again gets nothing", {
          phoneId,
          waMessageId,
          err,
        })
      }
    },
    async getMessage(key) {
      if (!key.id) return undefined
      const bytes = await ctx.store.loadSentWaMessage(phoneId, key.id)
      if (!bytes) {
        ctx.logger.debug("a retry receipt asked for a message that is not stored (never sent by wagate, or pruned)", { phoneId, waMessageId: key.id })
        return undefined
      }
      return baileys.proto.Message.decode(bytes)
    },
  }
}
