import { errors } from "../lib/errors"
import { codePointLength, isGroupJid } from "../lib/formats"
import { mediaUrlProblem } from "../lib/net-policy"
import { sha256Hex } from "../lib/secrets"
import { IdempotencyKeyTaken, type MessageRow, type NewMessageRow } from "../store/messages"
import type { StoreQueries } from "../store/store"
import type { MessageStatus, Page } from "../lib/vocabulary"
import { type PhoneRow } from "../store/phones"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { bornFailed, bornPending } from "./message-status"
import { resolvePhone } from "./phones"
import type { LiveSender } from "./live-sender"
import { recordMessageEvents } from "./message-events"
import { isSandboxGroupMember } from "./group-sandbox-state"
import { planSandboxSend, type SandboxPlan, type SandboxScheduler } from "./sandbox"
import { checkReplyTarget, extrasOf, sandboxVoiceNoteRefusal, sendKindProblems, type SendKindFields } from "./send-kinds"

export const CONTENT_MAX_CODE_POINTS = 4096
export const MEDIA_URLS_MAX = 10

/** A send request after its shape was validated. */
export interface SendCommand extends SendKindFields {
  fromPhoneId: string
  to: string
  content?: string
  mediaUrls?: string[]
  idempotencyKey?: string
}

/** The stored message, and whether it was replayed from an earlier request with the same key. */
export interface SendResult {
  message: MessageRow
  replayed: boolean
}

/** What sending needs besides the context. */
export interface SendDeps {
  sandbox: SandboxScheduler
  live: LiveSender
}

/** Rules that span fields or need more than a schema (docs/decisions.md § "Errors and validation"). */
function validateSend(ctx: DomainContext, cmd: SendCommand): { content: string; mediaUrls: string[] } {
  const content = cmd.content ?? ""
  const mediaUrls = cmd.mediaUrls ?? []
  const problems: string[] = []
  if (codePointLength(content) > CONTENT_MAX_CODE_POINTS) {
    problems.push(`content must be at most ${CONTENT_MAX_CODE_POINTS} characters`)
  }
  if (content.trim() === "" && mediaUrls.length === 0 && !cmd.location && !cmd.contact) {
    problems.push("content is required when mediaUrls is empty")
  }
  mediaUrls.forEach((url, i) => {
    const problem = mediaUrlProblem(url, ctx.config.outboundAllowCidrs)
    if (problem) problems.push(`mediaUrls[${i}] ${problem}`)
  })
  problems.push(...sendKindProblems(cmd, content, mediaUrls))
  if (problems.length > 0) throw errors.validation(problems)
  return { content, mediaUrls }
}

/**
 * Accepts a send (spec POST /v1/messages/send). Sandbox sends are born `sent` (or `failed` for
 * the failure recipients) with the due times of their delivered/read transitions on the row; live sends are born `pending`. The idempotency check and the insert run in one
 * synchronous transaction guarded by a unique index, so concurrent requests with one key
 * create exactly one message (docs/decisions.md § "Idempotency").
 */
export async function sendMessage(
  ctx: DomainContext,
  deps: SendDeps,
  principal: Principal,
  cmd: SendCommand,
): Promise<SendResult> {
  const { content, mediaUrls } = validateSend(ctx, cmd)
  const phone = await resolvePhone(ctx, principal.accountId, cmd.fromPhoneId)
  if (principal.env === "live" && phone.connectionStatus !== "connected") {
    throw errors.phoneNotConnected(phone.phoneNumber, phone.connectionStatus)
  }
  if (cmd.replyTo !== undefined) await checkReplyTarget(ctx, principal.accountId, principal.env, cmd.replyTo)
  const isGroup = isGroupJid(cmd.to)
  const extras = extrasOf(cmd)
  // Everything that decides what is sent; the key itself is not part of it. A plain text or
  // media send keeps the fingerprint it had before replies and kinds existed.
  const kinds = cmd.replyTo !== undefined || extras !== null ? [cmd.replyTo ?? null, extras] : []
  const fingerprint = sha256Hex(JSON.stringify([phone.id, cmd.to, content, mediaUrls, ...kinds]))

  /** The message an earlier request with the same key created, or null; 400 when its parameters differ. */
  const replayOf = async (q: StoreQueries): Promise<MessageRow | null> => {
    if (cmd.idempotencyKey === undefined) return null
    const existing = await q.findMessageByIdempotencyKey(principal.accountId, principal.env, cmd.idempotencyKey)
    if (existing && existing.requestFingerprint !== fingerprint) throw errors.idempotencyMismatch()
    return existing
  }

  const outcome = await ctx.store.write(async (q, tx) => {
    const earlier = await replayOf(q)
    if (earlier) return { message: earlier, replayed: true }
    const nowMs = ctx.clock.nowMs()
    const base: SandboxPlan =
      principal.env === "test"
        ? planSandboxSend(cmd.to, isGroup, phone.phoneNumber, nowMs, {
            deliveredMs: ctx.config.sandboxDeliveredMs,
            readMs: ctx.config.sandboxReadMs,
          }, isGroup && (await isSandboxGroupMember(q, principal.accountId, cmd.to, phone.phoneNumber)))
        : { birth: bornPending(), deliveredDueMs: null, readDueMs: null }
    // A magic recipient's failure comes first; otherwise the sandbox judges a voice note by its URL.
    const refusal = principal.env === "test" && extras?.voiceNote && base.birth.state.status !== "failed" ? sandboxVoiceNoteRefusal(mediaUrls[0]!) : null
    const plan = refusal === null ? base : { birth: bornFailed(nowMs, "media_unsupported_type", refusal), deliveredDueMs: null, readDueMs: null }
    let message: MessageRow
    try {
      message = await q.insertMessage({ ...newMessageRow(ctx, principal, phone, cmd, content, mediaUrls, fingerprint, plan, nowMs), replyTo: cmd.replyTo ?? null, extras })
    } catch (err) {
      // Another node took the key between our look and our insert (PostgreSQL): replay its message.
      if (!(err instanceof IdempotencyKeyTaken)) throw err
      const winner = await replayOf(q)
      if (!winner) throw err
      return { message: winner, replayed: true }
    }
    deps.sandbox.record(plan)
    if (principal.env === "live") await deps.live.accept(q, tx, message)
    await recordMessageEvents(ctx, q, tx, message, plan.birth.state, plan.birth.events)
    return { message, replayed: false }
  })
  // A replay reports the message as it is now, which may have moved on since the first request.
  const message = outcome.replayed ? (await ctx.store.findScopedMessage(principal.accountId, principal.env, outcome.message.id) ?? outcome.message) : outcome.message
  return { message, replayed: outcome.replayed }
}

function newMessageRow(
  ctx: DomainContext,
  principal: Principal,
  phone: PhoneRow,
  cmd: SendCommand,
  content: string,
  mediaUrls: string[],
  fingerprint: string,
  plan: SandboxPlan,
  nowMs: number,
): NewMessageRow {
  return {
    id: ctx.ids.newId("msg"),
    accountId: principal.accountId,
    env: principal.env,
    phoneId: phone.id,
    apiKeyId: principal.keyId,
    fromNumber: phone.phoneNumber,
    toAddress: cmd.to,
    isGroup: isGroupJid(cmd.to),
    content,
    mediaUrls,
    idempotencyKey: cmd.idempotencyKey ?? null,
    requestFingerprint: fingerprint,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    sandboxDeliveredDueMs: plan.deliveredDueMs,
    sandboxReadDueMs: plan.readDueMs,
    ...plan.birth.state,
  }
}

/** One message of the principal's account and environment, or 404. */
export async function getMessage(ctx: DomainContext, principal: Principal, messageId: string): Promise<MessageRow> {
  const row = await ctx.store.findScopedMessage(principal.accountId, principal.env, messageId)
  if (!row) throw errors.messageNotFound(messageId)
  return row
}

/** List filters and page. */
export interface ListQuery {
  phoneNumberId?: string
  status?: MessageStatus
  page: number
  limit: number
}

/**
 * Lists the principal's messages in its environment, newest first. A phone filter naming a
 * phone the account does not have yields an empty page, not an error, like any other filter
 * that matches nothing.
 */
export async function listMessages(ctx: DomainContext, principal: Principal, q: ListQuery): Promise<Page<MessageRow>> {
  let phoneId: string | undefined
  if (q.phoneNumberId !== undefined) {
    const phone = await ctx.store.findPhoneByRef(principal.accountId, q.phoneNumberId)
    if (!phone) return { rows: [], total: 0, page: q.page, limit: q.limit }
    phoneId = phone.id
  }
  const { rows, total } = await ctx.store.listMessages({
    accountId: principal.accountId,
    env: principal.env,
    phoneId,
    status: q.status,
    limit: q.limit,
    offset: (q.page - 1) * q.limit,
  })
  return { rows, total, page: q.page, limit: q.limit }
}
