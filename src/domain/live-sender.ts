import type { Database } from "bun:sqlite"
import type { Scheduler } from "../lib/scheduler"
import { findMessage, type MessageRow } from "../store/messages"
import { findPartByWaId, insertPart, listParts, setPartMediaKind, updatePart, type PartRow } from "../store/message-parts"
import { deleteSendJob, insertSendJob, listPhonesWithJobs, listSendJobs } from "../store/send-jobs"
import type { WriteTx } from "../store/writer"
import type { MediaKind, OutboundPart, PartRejection, WhatsAppSession } from "../whatsapp/gateway"
import type { DomainContext } from "./context"
import { canPost, type LiveLookups } from "./live-lookups"
import { applyMessageSignal } from "./message-events"
import type { MessageErrorCode } from "../lib/vocabulary"
import { applySignal, type MessageState, type StatusSignal } from "./message-status"
import { waMessageIdFor } from "./wa-ids"

/** What downloading one media URL came to (the fetcher's result, in the domain's terms). */
export type MediaDownload =
  | { ok: true; media: { kind: MediaKind; bytes: Uint8Array; mimetype: string; fileName: string } }
  | { ok: false; errorCode: MessageErrorCode; message: string }

export type FetchMedia = (url: string) => Promise<MediaDownload>

/** Jitter around WAGATE_SEND_INTERVAL_MS (API-DECISIONS §7): ±30%. */
export const SEND_INTERVAL_JITTER = 0.3
const PACE_KIND = "send-pace"
/** Hand-offs that may fail on a connected socket before the message fails with internal_error. */
export const MAX_HANDOFF_ATTEMPTS = 5
/** Media kinds WhatsApp shows a caption under. */
const CAPTIONABLE: ReadonlySet<string> = new Set(["image", "video", "document"])
const TIMEOUT_KIND = "send-timeout"

/**
 * The live send pipeline (API-DECISIONS §7): jobs are rows written with their message; one
 * serial, paced sender per phone hands them to WhatsApp once the recipient checks pass and the
 * media is downloaded; acks, rejections and receipts of the parts fold into the message's
 * status. A job lives until its message leaves `pending`, so a crash or a reconnect re-sends
 * whatever was not acknowledged, with the same WhatsApp ids.
 */
export interface LiveSender {
  /** Queues a live message in its own transaction: its parts and its job. */
  accept(db: Database, tx: WriteTx, message: MessageRow): void
  /** Starts the send timeout of every phone with stored jobs; each connect cancels its own. */
  start(): void
  phoneConnected(phoneId: string): void
  phoneDisconnected(phoneId: string): void
  /** The phone can no longer send (logged out or removed): its queued messages fail. */
  phoneGone(phoneId: string): Promise<void>
  partAcked(waMessageId: string, atMs: number): Promise<void>
  partRejected(waMessageId: string, rejection: PartRejection, atMs: number): Promise<void>
  receipt(waMessageId: string, kind: "delivered" | "read", atMs: number): Promise<void>
}

export function createLiveSender(deps: {
  ctx: DomainContext
  scheduler: Scheduler
  lookups: LiveLookups
  fetchMedia: FetchMedia
  /** The connected session of a phone, or null. */
  sessionOf: (phoneId: string) => WhatsAppSession | null
  sendIntervalMs: number
  sendTimeoutMs: number
  random?: () => number
}): LiveSender {
  const { ctx, scheduler } = deps
  const random = deps.random ?? Math.random
  const busy = new Set<string>()
  /** Jobs handed to WhatsApp by this process since the phone's last connect, waiting for acks. */
  const handedOver = new Map<string, Set<string>>()
  const nextAllowedAtMs = new Map<string, number>()

  scheduler.on(PACE_KIND, (phoneIds) => phoneIds.forEach(wake))
  scheduler.on(TIMEOUT_KIND, (phoneIds) => {
    for (const phoneId of phoneIds) {
      if (deps.sessionOf(phoneId)) continue
      void failAllJobs(phoneId, "send_timeout", `The phone stayed disconnected for more than ${deps.sendTimeoutMs} ms`)
    }
  })

  function handed(phoneId: string): Set<string> {
    let set = handedOver.get(phoneId)
    if (!set) handedOver.set(phoneId, (set = new Set()))
    return set
  }

  /** Hand-off failures per message while its phone stayed connected. */
  const stalls = new Map<string, number>()
  /** Only a started sender sends: a short CLI command (pairing) must never send queued messages. */
  let started = false

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
      const session = deps.sessionOf(phoneId)
      if (!session) return
      const job = listSendJobs(ctx.db, phoneId).find((j) => !handed(phoneId).has(j.messageId))
      if (!job) return
      const notBeforeMs = nextAllowedAtMs.get(phoneId) ?? 0
      if (ctx.clock.nowMs() < notBeforeMs) {
        scheduler.schedule(PACE_KIND, phoneId, notBeforeMs)
        return
      }
      const handedOff = await sendJob(phoneId, job.messageId, session)
      // The connection changed while this job was being prepared (a slow media download) or
      // sent: the reconnect's wake found this drain busy and was dropped, so the drain itself
      // starts over on the new connection (or stops when there is none). Whatever the old
      // socket took without an ack goes again, with the same ids.
      if (deps.sessionOf(phoneId) !== session) continue
      if (!handedOff) {
        // WhatsApp did not answer a lookup or a write while the phone stays connected: retry at
        // the next pace instead of leaving the queue stuck until some other send or reconnect wakes it.
        const failures = (stalls.get(job.messageId) ?? 0) + 1
        stalls.set(job.messageId, failures)
        if (failures >= MAX_HANDOFF_ATTEMPTS) {
          // A message WhatsApp keeps refusing to take must not block the phone's queue forever.
          stalls.delete(job.messageId)
          await failMessage(job.messageId, "internal_error", `WhatsApp did not accept the message after ${MAX_HANDOFF_ATTEMPTS} attempts`)
          continue
        }
        scheduler.schedule(PACE_KIND, phoneId, ctx.clock.nowMs() + pacedIntervalMs())
        return
      }
      stalls.delete(job.messageId)
      handed(phoneId).add(job.messageId)
      nextAllowedAtMs.set(phoneId, ctx.clock.nowMs() + pacedIntervalMs())
    }
  }

  function pacedIntervalMs(): number {
    const jitter = 1 + (random() * 2 - 1) * SEND_INTERVAL_JITTER
    return Math.round(deps.sendIntervalMs * jitter)
  }

  /**
   * Checks, downloads and sends one message. Returns false when the socket went away mid-way:
   * the job stays and is taken up again on the next connect.
   */
  async function sendJob(phoneId: string, messageId: string, session: WhatsAppSession): Promise<boolean> {
    const message = findMessage(ctx.db, messageId)
    if (!message || message.status !== "pending") {
      await ctx.writer.write((db) => deleteSendJob(db, messageId))
      return true
    }
    let toJid = message.toAddress
    if (message.isGroup) {
      const groups = await deps.lookups.groups(phoneId, session).catch(() => null)
      // Without a group list (WhatsApp did not answer) the send goes ahead and WhatsApp decides.
      const group = groups?.find((g) => g.id === message.toAddress)
      if (groups && (!group || !canPost(group))) {
        await failMessage(messageId, "group_not_allowed", `Phone ${message.fromNumber} cannot post to group ${message.toAddress}`)
        return true
      }
    } else {
      let jid: string | null
      try {
        jid = await deps.lookups.recipientJid(phoneId, session, message.toAddress)
      } catch {
        return false
      }
      if (jid === null) {
        await failMessage(messageId, "recipient_not_on_whatsapp", `${message.toAddress} is not on WhatsApp`)
        return true
      }
      toJid = jid
    }

    const parts = listParts(ctx.db, messageId)
    const media = new Map<number, MediaDownload & { ok: true }>()
    for (const part of parts) {
      if (part.mediaUrl === null || part.status !== "pending") continue
      const download = await deps.fetchMedia(part.mediaUrl)
      if (!download.ok) {
        await failMessage(messageId, download.errorCode, download.message)
        return true
      }
      media.set(part.partIndex, download)
    }
    const outbound = await planParts(message, parts, media, toJid)
    for (const part of outbound) {
      try {
        await session.sendPart(part)
      } catch (err) {
        ctx.logger.warn("handing a part to WhatsApp failed; it is retried on reconnect", { messageId, err })
        return false
      }
    }
    return true
  }

  /**
   * Turns stored parts into WhatsApp messages: the text rides as the caption of the first image,
   * video or document; with no such media it is a text part of its own (API-DECISIONS §7). The
   * kinds are recorded, so a re-send of the unacknowledged parts after a reconnect decides the
   * same way and never repeats the caption or adds a text message.
   */
  async function planParts(message: MessageRow, parts: PartRow[], media: Map<number, MediaDownload & { ok: true }>, toJid: string) {
    const kindOf = (p: PartRow) => media.get(p.partIndex)?.media.kind ?? p.mediaKind
    const hasText = message.content.trim() !== ""
    const captionable = parts.find((p) => p.mediaUrl !== null && CAPTIONABLE.has(kindOf(p) ?? ""))
    const needsTextPart = hasText && !captionable && !parts.some((p) => p.mediaUrl === null)
    let all = parts
    if (needsTextPart || media.size > 0) {
      await ctx.writer.write((db) => {
        for (const [partIndex, download] of media) setPartMediaKind(db, message.id, partIndex, download.media.kind)
        if (needsTextPart) {
          insertPart(db, { messageId: message.id, partIndex: parts.length, waMessageId: waMessageIdFor(message.id, parts.length), mediaUrl: null, status: "pending" })
        }
      })
      if (needsTextPart) all = listParts(ctx.db, message.id)
    }
    const out: OutboundPart[] = []
    // The text part goes first, like a message with attachments.
    for (const part of [...all].sort((a, b) => Number(b.mediaUrl === null) - Number(a.mediaUrl === null))) {
      if (part.status !== "pending") continue
      if (part.mediaUrl === null) {
        out.push({ waMessageId: part.waMessageId, toJid, text: message.content })
        continue
      }
      const m = media.get(part.partIndex)!.media
      out.push({
        waMessageId: part.waMessageId,
        toJid,
        media: {
          kind: m.kind,
          bytes: m.bytes,
          mimetype: m.mimetype,
          fileName: m.fileName,
          caption: hasText && part.partIndex === captionable?.partIndex ? message.content : undefined,
        },
      })
    }
    return out
  }

  /** Fails a pending message and all its unfinished parts, ending its job. */
  async function failMessage(messageId: string, errorCode: MessageErrorCode, errorMessage: string): Promise<void> {
    await ctx.writer.write((db, tx) => {
      const message = findMessage(db, messageId)
      if (!message) return
      const atMs = ctx.clock.nowMs()
      for (const part of listParts(db, messageId)) {
        if (part.status === "pending") updatePart(db, { ...part, ...applySignal(part, { kind: "failed", atMs, errorCode, errorMessage }).state })
      }
      applyMessageSignal(ctx, db, tx, message, { kind: "failed", atMs, errorCode, errorMessage })
      deleteSendJob(db, messageId)
    })
  }

  async function failAllJobs(phoneId: string, errorCode: MessageErrorCode, errorMessage: string): Promise<void> {
    for (const job of listSendJobs(ctx.db, phoneId)) await failMessage(job.messageId, errorCode, errorMessage)
    handedOver.delete(phoneId)
  }

  /** Applies a signal to the part WhatsApp names, then folds all parts into the message. */
  async function onPartSignal(waMessageId: string, signal: StatusSignal): Promise<void> {
    await ctx.writer.write((db, tx) => {
      const part = findPartByWaId(db, waMessageId)
      // Not one of ours (sent from the phone itself), or already gone.
      if (!part) return
      const next = applySignal(part, signal).state
      updatePart(db, { ...part, ...next })
      const message = findMessage(db, part.messageId)
      if (!message) return
      const parts = listParts(db, part.messageId)
      const aggregate = aggregateParts(parts)
      if (aggregate === null) return
      let updated = applyMessageSignal(ctx, db, tx, message, aggregate)
      // A delivery receipt after the read receipt only fills deliveredAt (API-DECISIONS §7); the
      // aggregate says "read" again, so the late delivery is applied on its own.
      if (updated.status === "read" && updated.deliveredAtMs === null && parts.every((p) => p.deliveredAtMs !== null)) {
        updated = applyMessageSignal(ctx, db, tx, updated, { kind: "delivered", atMs: Math.max(...parts.map((p) => p.deliveredAtMs!)) })
      }
      if (updated.status !== "pending") {
        deleteSendJob(db, message.id)
        tx.afterCommit(() => handedOver.get(message.phoneId)?.delete(message.id))
      }
    })
  }

  return {
    accept(db, tx, message) {
      const urls = message.mediaUrls
      const parts = urls.length > 0 ? urls.map((url, i) => ({ url, i })) : [{ url: null, i: 0 }]
      for (const { url, i } of parts) {
        insertPart(db, { messageId: message.id, partIndex: i, waMessageId: waMessageIdFor(message.id, i), mediaUrl: url, status: "pending" })
      }
      insertSendJob(db, { messageId: message.id, phoneId: message.phoneId, createdAtMs: message.createdAtMs })
      tx.afterCommit(() => wake(message.phoneId))
    },
    start() {
      started = true
      for (const phoneId of listPhonesWithJobs(ctx.db)) {
        if (deps.sessionOf(phoneId)) wake(phoneId)
        else scheduler.schedule(TIMEOUT_KIND, phoneId, ctx.clock.nowMs() + deps.sendTimeoutMs)
      }
    },
    phoneConnected(phoneId) {
      scheduler.cancel(TIMEOUT_KIND, phoneId)
      // A new connection: whatever was handed to the old socket without an ack goes again.
      handedOver.delete(phoneId)
      wake(phoneId)
    },
    phoneDisconnected(phoneId) {
      if (listSendJobs(ctx.db, phoneId).length > 0) scheduler.schedule(TIMEOUT_KIND, phoneId, ctx.clock.nowMs() + deps.sendTimeoutMs)
    },
    async phoneGone(phoneId) {
      scheduler.cancel(TIMEOUT_KIND, phoneId)
      await failAllJobs(phoneId, "phone_disconnected", "The phone was logged out before the message was sent")
    },
    partAcked: (waMessageId, atMs) => onPartSignal(waMessageId, { kind: "sent", atMs }),
    partRejected: (waMessageId, rejection, atMs) =>
      onPartSignal(waMessageId, { kind: "failed", atMs, errorCode: rejection.code, errorMessage: rejectionMessage(rejection) }),
    receipt: (waMessageId, kind, atMs) => onPartSignal(waMessageId, { kind, atMs }),
  }
}

/** The message's errorMessage for a refused part, quoting WhatsApp's own code for support. */
function rejectionMessage(rejection: PartRejection): string {
  return rejection.code === "account_restricted"
    ? `WhatsApp restricted this phone from messaging new contacts (error ${rejection.detail})`
    : `WhatsApp rejected the message (error ${rejection.detail})`
}

const RANK = { pending: 0, sent: 1, delivered: 2, read: 3 } as const

/**
 * The status of a message from its parts: failed as soon as one part failed, otherwise the
 * least advanced part (API-DECISIONS §7), at the time the slowest part got there. Null while
 * every part is still pending.
 */
export function aggregateParts(parts: readonly MessageState[]): StatusSignal | null {
  const failed = parts.find((p) => p.status === "failed")
  if (failed) return { kind: "failed", atMs: failed.failedAtMs!, errorCode: failed.errorCode as MessageErrorCode, errorMessage: failed.errorMessage ?? "" }
  const least = parts.reduce((a, b) => (RANK[b.status as keyof typeof RANK] < RANK[a.status as keyof typeof RANK] ? b : a))
  if (least.status === "pending") return null
  const at = (p: MessageState) => (least.status === "sent" ? p.sentAtMs : least.status === "delivered" ? p.deliveredAtMs ?? p.readAtMs : p.readAtMs)
  const atMs = Math.max(...parts.map((p) => at(p) ?? 0))
  return { kind: least.status as "sent" | "delivered" | "read", atMs }
}
