import type { ByteBudget } from "../lib/byte-budget"
import type { MessageErrorCode } from "../lib/vocabulary"
import type { WhatsAppSession } from "../whatsapp/gateway"
import type { DomainContext } from "./context"
import type { LiveLookups } from "./live-lookups"
import { applyMessageSignal } from "./message-events"
import { applySignal } from "./message-status"
import { discardMedia, downloadMedia, handOver, planOutbound, type FetchMedia } from "./outbound-parts"
import { resolveRecipient } from "./recipients"

/*
 * One live send job (docs/decisions.md § "Live sends"): the recipient check, the media download
 * and the hand-over to WhatsApp, or the failure that ends the job. The queue that paces the jobs
 * of each phone is live-sender.ts.
 */

/** What a job needs beyond its message. */
export interface SendJobDeps {
  ctx: DomainContext
  lookups: LiveLookups
  fetchMedia: FetchMedia
  /** WAGATE_MEDIA_MEMORY_MB: what all phones' media hand-offs may hold in memory at once. */
  mediaBudget: ByteBudget
}

/**
 * Checks, downloads and sends one message. Returns false when the socket went away mid-way:
 * the job stays and is taken up again on the next connect.
 */
export async function sendJob(deps: SendJobDeps, phoneId: string, messageId: string, session: WhatsAppSession): Promise<boolean> {
  const message = await deps.ctx.store.findMessage(messageId)
  if (!message || message.status !== "pending") {
    await deps.ctx.store.write(async (q) => await q.deleteSendJob(messageId))
    return true
  }
  const recipient = await resolveRecipient(deps.lookups, phoneId, message, session)
  if (recipient.kind === "unanswered") return false
  if (recipient.kind === "refused") {
    await failLiveMessage(deps.ctx, messageId, recipient.errorCode, recipient.message)
    return true
  }
  const parts = await deps.ctx.store.listParts(messageId)
  const download = await downloadMedia(deps.fetchMedia, parts)
  if (!download.ok) {
    await failLiveMessage(deps.ctx, messageId, download.errorCode, download.message)
    return true
  }
  try {
    const plan = await planOutbound(deps.ctx, message, parts, download.media, recipient.jid)
    if (!plan.ok) await failLiveMessage(deps.ctx, messageId, plan.errorCode, plan.message)
    return plan.ok ? await handOver(deps.ctx, session, deps.mediaBudget, messageId, plan.parts) : true
  } finally {
    // Sent or not, the files go: a retry after a reconnect downloads again rather than keep
    // customers' documents on disk for as long as a phone stays away.
    discardMedia(download.media)
  }
}

/** Fails a pending message and all its unfinished parts, ending its job. */
export async function failLiveMessage(ctx: DomainContext, messageId: string, errorCode: MessageErrorCode, errorMessage: string): Promise<void> {
  await ctx.store.write(async (q, tx) => {
    const message = await q.findMessage(messageId)
    if (!message) return
    const atMs = ctx.clock.nowMs()
    for (const part of await q.listParts(messageId)) {
      if (part.status === "pending") await q.updatePart({ ...part, ...applySignal(part, { kind: "failed", atMs, errorCode, errorMessage }).state })
    }
    await applyMessageSignal(ctx, q, tx, message, { kind: "failed", atMs, errorCode, errorMessage })
    await q.deleteSendJob(messageId)
  })
}

