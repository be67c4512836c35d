import { refusalMessages } from "../lib/errors"
import type { MessageErrorCode, ReceiptKind } from "../lib/vocabulary"
import type { PartRejection } from "../whatsapp/gateway"
import type { DomainContext } from "./context"
import { applyMessageSignal } from "./message-events"
import { applySignal, type MessageState, type StatusSignal } from "./message-status"

/**
 * What WhatsApp says about the parts of live messages (server acks, rejections, delivery and
 * read receipts), folded into each message's status. The gateway's session events reach it
 * through the wiring at the composition root (src/deps.ts).
 */
export interface MessageReceipts {
  partAcked(waMessageId: string, atMs: number): Promise<void>
  partRejected(waMessageId: string, rejection: PartRejection, atMs: number): Promise<void>
  receipt(waMessageId: string, kind: ReceiptKind, atMs: number): Promise<void>
}

export function createMessageReceipts(deps: {
  ctx: DomainContext
  /** Told, once committed, that a message left `pending`: the send queue stops waiting for its acks. */
  settled: (phoneId: string, messageId: string) => void
}): MessageReceipts {
  const { ctx } = deps

  /** Applies a signal to the part WhatsApp names, then folds all parts into the message. */
  async function onPartSignal(waMessageId: string, signal: StatusSignal): Promise<void> {
    await ctx.store.write(async (q, tx) => {
      const part = await q.findPartByWaId(waMessageId)
      // Not one of ours (sent from the phone itself), or already gone.
      if (!part) return
      await q.updatePart({ ...part, ...applySignal(part, signal).state })
      const message = await q.findMessage(part.messageId)
      if (!message) return
      const parts = await q.listParts(part.messageId)
      const aggregate = aggregateParts(parts)
      if (aggregate === null) return
      let updated = await applyMessageSignal(ctx, q, tx, message, aggregate)
      // A delivery receipt after the read receipt only fills deliveredAt (docs/decisions.md § "Outbound messages");
      // the aggregate says "read" again, so the late delivery is applied on its own.
      if (updated.status === "read" && updated.deliveredAtMs === null && parts.every((p) => p.deliveredAtMs !== null)) {
        updated = await applyMessageSignal(ctx, q, tx, updated, { kind: "delivered", atMs: Math.max(...parts.map((p) => p.deliveredAtMs!)) })
      }
      if (updated.status !== "pending") {
        await q.deleteSendJob(message.id)
        tx.afterCommit(() => deps.settled(message.phoneId, message.id))
      }
    })
  }

  return {
    partAcked: (waMessageId, atMs) => onPartSignal(waMessageId, { kind: "sent", atMs }),
    partRejected: (waMessageId, rejection, atMs) =>
      onPartSignal(waMessageId, { kind: "failed", atMs, errorCode: rejection.code, errorMessage: rejectionMessage(rejection) }),
    receipt: (waMessageId, kind, atMs) => onPartSignal(waMessageId, { kind, atMs }),
  }
}

/** The message's errorMessage for a refused part, quoting WhatsApp's own code for support. */
export function rejectionMessage(rejection: PartRejection): string {
  if (rejection.code === "privacy_token_missing") return refusalMessages.privacyTokenMissing(rejection.detail)
  if (rejection.code !== "account_restricted") return refusalMessages.rejected(rejection.detail)
  if (rejection.privacyTokenAttached === true) return refusalMessages.restrictedWithToken(rejection.detail)
  return refusalMessages.restricted(rejection.detail)
}

const RANK = { pending: 0, sent: 1, delivered: 2, read: 3 } as const

/**
 * The status of a message from its parts: failed as soon as one part failed, otherwise the
 * least advanced part (docs/decisions.md § "Live sends"), at the time the slowest part got
 * there. Null while every part is still pending.
 */
export function aggregateParts(parts: readonly MessageState[]): StatusSignal | null {
  const failed = parts.find((p) => p.status === "failed")
  if (failed) return { kind: "failed", atMs: failed.failedAtMs!, errorCode: failed.errorCode as MessageErrorCode, errorMessage: failed.errorMessage ?? "" }
  const least = parts.reduce((a, b) => (RANK[b.status as keyof typeof RANK] < RANK[a.status as keyof typeof RANK] ? b : a))
  if (least.status === "pending") return null
  const at = (p: MessageState) => (least.status === "sent" ? p.sentAtMs : least.status === "delivered" ? p.deliveredAtMs ?? p.readAtMs : p.readAtMs)
  const atMs = Math.max(...parts.map((p) => at(p) ?? 0))
  return { kind: least.status as "sent" | ReceiptKind, atMs }
}
