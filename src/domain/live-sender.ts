import type { StoreQueries } from "../store/store"
import type { ByteBudget } from "../lib/byte-budget"
import type { Scheduler } from "../lib/scheduler"
import type { MessageErrorCode } from "../lib/vocabulary"
import { type MessageRow } from "../store/messages"
import type { WriteTx } from "../store/store"
import type { DomainContext } from "./context"
import type { LiveLookups } from "./live-lookups"
import { insertNewParts, type FetchMedia } from "./outbound-parts"
import type { PhoneLinkListener, PhoneLinks } from "./phone-links"
import { failLiveMessage, sendJob } from "./live-send-job"

/** Jitter around WAGATE_SEND_INTERVAL_MS (docs/decisions.md § "Live sends"): ±30%. */
export const SEND_INTERVAL_JITTER = 0.3
const PACE_KIND = "send-pace"
/** Hand-offs that may fail on a connected socket before the message fails with internal_error. */
export const MAX_HANDOFF_ATTEMPTS = 5
const TIMEOUT_KIND = "send-timeout"

/**
 * The per-phone send queue of live messages (docs/decisions.md § "Live sends"): jobs are rows
 * written with their message; one serial, paced sender per phone hands them to WhatsApp once the
 * recipient checks pass and the media is downloaded (outbound-parts.ts). A job lives until its
 * message leaves `pending` (message-receipts.ts), so a crash or a reconnect re-sends whatever was
 * not acknowledged, with the same WhatsApp ids. It hears of connection changes from the phone
 * links it is given.
 */
export interface LiveSender extends PhoneLinkListener {
  /** Queues a live message in its own transaction: its parts and its job. */
  accept(q: StoreQueries, tx: WriteTx, message: MessageRow): Promise<void>
  /**
   * Starts listening for jobs queued on any node and the send timeout of every owned phone with
   * stored jobs; each connect cancels its own.
   */
  start(): Promise<void>
  /** Phones this node has just come to own: their stored jobs are its to send, or to time out. */
  adopted(phoneIds: readonly string[]): Promise<void>
  /** Stops listening. */
  stop(): Promise<void>
  /** The message left `pending`: its parts need no re-send on the next connect. */
  settled(phoneId: string, messageId: string): void
}

export function createLiveSender(deps: {
  ctx: DomainContext
  scheduler: Scheduler
  lookups: LiveLookups
  fetchMedia: FetchMedia
  /** WAGATE_MEDIA_MEMORY_MB: what all phones' media hand-offs may hold in memory at once. */
  mediaBudget: ByteBudget
  links: PhoneLinks
  sendIntervalMs: number
  sendTimeoutMs: number
  random?: () => number
  /** Whether this process owns the phone (several nodes: it holds its lease); every phone by default. */
  owns?: (phoneId: string) => boolean
}): LiveSender {
  const { ctx, scheduler, links } = deps
  const owns = deps.owns ?? (() => true)
  const jobDeps = { ctx, lookups: deps.lookups, fetchMedia: deps.fetchMedia, mediaBudget: deps.mediaBudget }
  let unlisten: (() => Promise<void>) | null = null
  const random = deps.random ?? Math.random
  const busy = new Set<string>()
  /** Jobs handed to WhatsApp by this process since the phone's last connect, waiting for acks. */
  const handedOver = new Map<string, Set<string>>()
  const nextAllowedAtMs = new Map<string, number>()
  /** Hand-off failures per message while its phone stayed connected. */
  const stalls = new Map<string, number>()
  /** Only a started sender sends: a short CLI command (pairing) must never send queued messages. */
  let started = false

  scheduler.on(PACE_KIND, (phoneIds) => phoneIds.forEach(wake))
  scheduler.on(TIMEOUT_KIND, (phoneIds) => {
    for (const phoneId of phoneIds) {
      // Another node owns the phone now: its jobs are that node's to send or to time out.
      if (links.sessionOf(phoneId) || !owns(phoneId)) continue
      void failAllJobs(phoneId, "send_timeout", `The phone stayed disconnected for more than ${deps.sendTimeoutMs} ms`)
    }
  })

  function handed(phoneId: string): Set<string> {
    let set = handedOver.get(phoneId)
    if (!set) handedOver.set(phoneId, (set = new Set()))
    return set
  }

  function wake(phoneId: string): void {
    if (!started || busy.has(phoneId)) return
    busy.add(phoneId)
    void drain(phoneId)
      .catch((err) => ctx.logger.error("live sender failed", { phoneId, err }))
      .finally(() => busy.delete(phoneId))
  }

  /** Sends the phone's jobs one at a time, paced, while it stays connected. */
  async function drain(phoneId: string): Promise<void> {
    for (;;) {
      const session = links.sessionOf(phoneId)
      if (!session) return
      const job = (await ctx.store.listSendJobs(phoneId)).find((j) => !handed(phoneId).has(j.messageId))
      if (!job) return
      const notBeforeMs = nextAllowedAtMs.get(phoneId) ?? 0
      if (ctx.clock.nowMs() < notBeforeMs) {
        scheduler.schedule(PACE_KIND, phoneId, notBeforeMs)
        return
      }
      const handedOff = await sendJob(jobDeps, phoneId, job.messageId, session)
      // The connection changed while this job was being prepared (a slow media download) or
      // sent: the reconnect's wake found this drain busy and was dropped, so the drain itself
      // starts over on the new connection (or stops when there is none). Whatever the old
      // socket took without an ack goes again, with the same ids.
      if (links.sessionOf(phoneId) !== session) continue
      if (!handedOff) {
        if (await stalled(job.messageId)) continue
        // WhatsApp did not answer a lookup or a write while the phone stays connected: retry at
        // the next pace instead of leaving the queue stuck until some other send or reconnect wakes it.
        scheduler.schedule(PACE_KIND, phoneId, ctx.clock.nowMs() + pacedIntervalMs())
        return
      }
      stalls.delete(job.messageId)
      handed(phoneId).add(job.messageId)
      nextAllowedAtMs.set(phoneId, ctx.clock.nowMs() + pacedIntervalMs())
    }
  }

  /** Counts a failed hand-off; true when it was the last one allowed and the message failed. */
  async function stalled(messageId: string): Promise<boolean> {
    const failures = (stalls.get(messageId) ?? 0) + 1
    stalls.set(messageId, failures)
    if (failures < MAX_HANDOFF_ATTEMPTS) return false
    // A message WhatsApp keeps refusing to take must not block the phone's queue forever.
    stalls.delete(messageId)
    await failLiveMessage(ctx, messageId, "internal_error", `WhatsApp did not accept the message after ${MAX_HANDOFF_ATTEMPTS} attempts`)
    return true
  }

  function pacedIntervalMs(): number {
    const jitter = 1 + (random() * 2 - 1) * SEND_INTERVAL_JITTER
    return Math.round(deps.sendIntervalMs * jitter)
  }

  async function failAllJobs(phoneId: string, errorCode: MessageErrorCode, errorMessage: string): Promise<void> {
    for (const job of await ctx.store.listSendJobs(phoneId)) await failLiveMessage(ctx, job.messageId, errorCode, errorMessage)
    handedOver.delete(phoneId)
  }

  /** Wakes every connected phone with jobs. */
  async function rescan(): Promise<void> {
    for (const phoneId of await ctx.store.listPhonesWithJobs()) if (links.sessionOf(phoneId)) wake(phoneId)
  }

  const sender: LiveSender = {
    async accept(q, tx, message) {
      await insertNewParts(q, message)
      await q.insertSendJob({ messageId: message.id, phoneId: message.phoneId, createdAtMs: message.createdAtMs })
      // Whichever node holds the phone hears it, this one included, once the job is committed.
      tx.notify("send_jobs", message.phoneId)
    },
    async start() {
      started = true
      // A signal lost while the listening connection was down is made up for by a rescan.
      unlisten = await ctx.store.listen("send_jobs", wake, () => void rescan().catch((err) => ctx.logger.error("rescanning queued sends failed", { err })))
      await sender.adopted(await ctx.store.listPhonesWithJobs())
    },
    async adopted(phoneIds) {
      const withJobs = new Set(await ctx.store.listPhonesWithJobs())
      for (const phoneId of phoneIds) {
        if (!withJobs.has(phoneId) || !owns(phoneId)) continue
        if (links.sessionOf(phoneId)) wake(phoneId)
        else scheduler.schedule(TIMEOUT_KIND, phoneId, ctx.clock.nowMs() + deps.sendTimeoutMs)
      }
    },
    async stop() {
      await unlisten?.()
      unlisten = null
    },
    settled: (phoneId, messageId) => void handedOver.get(phoneId)?.delete(messageId),
    connected(phoneId) {
      scheduler.cancel(TIMEOUT_KIND, phoneId)
      // A new connection: whatever was handed to the old socket without an ack goes again.
      handedOver.delete(phoneId)
      wake(phoneId)
    },
    async disconnected(phoneId) {
      if ((await ctx.store.listSendJobs(phoneId)).length > 0) scheduler.schedule(TIMEOUT_KIND, phoneId, ctx.clock.nowMs() + deps.sendTimeoutMs)
    },
    async gone(phoneId) {
      scheduler.cancel(TIMEOUT_KIND, phoneId)
      await failAllJobs(phoneId, "phone_disconnected", "The phone was logged out before the message was sent")
    },
  }
  links.listen(sender)
  return sender
}
