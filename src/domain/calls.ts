import type { CallOutcome } from "../lib/vocabulary"
import type { CallRow } from "../store/calls"
import type { StoreQueries, WriteTx } from "../store/store"
import type { CallSignal, CallStage, WhatsAppSession } from "../whatsapp/gateway"
import { buildCallEndedData, buildCallReceivedData } from "./call-events"
import type { DomainContext } from "./context"
import { jidOfAddress } from "./wa-targets"
import { waMessageIdFor } from "./wa-ids"

/*
 * Incoming calls on a live phone (docs/api.md § "Calls"). Each call is a row, so that it emits
 * `call.received` once (a repeated offer finds its row) and `call.ended` once (only a ringing row
 * ends), whichever node and whatever restart the steps come through. The phone's call policy is
 * applied on the node holding its socket, as the offer arrives.
 */

/** How long a caller waits between two of the policy's reply texts. */
export const CALL_REPLY_WINDOW_MS = 60 * 60 * 1000
/** How long a call is kept: a reject or an end after that finds nothing. */
export const CALL_RETENTION_MS = 30 * 24 * 60 * 60 * 1000

/**
 * How a step of a call ends it, or null when it does not (the offer). A device of the account
 * taking the call is `answered_elsewhere`; a decline anywhere (the phone, wagate, the policy) is
 * `rejected`; a timeout or the caller hanging up before anyone answered is `missed`. A terminate
 * after an answer or a reject ends nothing: the call had ended already.
 */
export function callOutcomeOf(stage: CallStage): CallOutcome | null {
  switch (stage) {
    case "offered":
      return null
    case "accepted_elsewhere":
      return "answered_elsewhere"
    case "rejected":
      return "rejected"
    case "timed_out":
    case "terminated":
      return "missed"
  }
}

/** Ends a ringing call with its event, in the caller's write; false when it had ended or is unknown. */
export async function endCallIn(ctx: DomainContext, q: StoreQueries, tx: WriteTx, call: CallRow, accountId: string, outcome: CallOutcome, atMs: number): Promise<boolean> {
  if (!(await q.endCall(call.phoneId, call.callId, outcome, atMs))) return false
  const data = buildCallEndedData(call, outcome, atMs)
  await ctx.events.record(q, tx, { accountId, env: call.env, occurredAtMs: ctx.clock.nowMs(), type: "call.ended", data })
  return true
}

/**
 * Records a call's first offer with its `call.received` event, in the caller's write, in the
 * call's environment; false when the call was recorded before (a repeated offer).
 */
export async function offerCallIn(ctx: DomainContext, q: StoreQueries, tx: WriteTx, accountId: string, call: CallRow): Promise<boolean> {
  await q.pruneCalls(call.phoneId, ctx.clock.nowMs() - CALL_RETENTION_MS)
  if (!(await q.insertCall(call))) return false
  await ctx.events.record(q, tx, { accountId, env: call.env, occurredAtMs: ctx.clock.nowMs(), type: "call.received", data: buildCallReceivedData(call) })
  return true
}

/**
 * Records one step of a call with its event. Returns the call when this step is its first offer
 * (the policy then applies to it), else null.
 */
export async function recordCallSignal(ctx: DomainContext, phoneId: string, signal: CallSignal): Promise<CallRow | null> {
  return ctx.store.write(async (q, tx) => {
    const phone = await q.findPhone(phoneId)
    if (!phone) return null
    const outcome = callOutcomeOf(signal.stage)
    if (outcome === null) {
      const call: CallRow = {
        phoneId,
        env: "live",
        callId: signal.callId,
        caller: signal.from,
        callerJid: signal.callerJid,
        isVideo: signal.isVideo,
        isGroup: signal.isGroup,
        offeredAtMs: signal.atMs,
        endedAtMs: null,
        outcome: null,
      }
      return (await offerCallIn(ctx, q, tx, phone.accountId, call)) ? call : null
    }
    // A step of a call whose offer wagate never saw (it came before the phone was linked) ends nothing.
    const call = await q.findCall(phoneId, "live", signal.callId)
    if (call) await endCallIn(ctx, q, tx, call, phone.accountId, outcome, signal.atMs)
    return null
  })
}

/**
 * What the call policy acts through: a live phone's socket, or the sandbox, which has no
 * WhatsApp to tell (src/domain/sandbox-calls.ts).
 */
export interface CallHandset {
  reject(call: CallRow): Promise<void>
  reply(call: CallRow, text: string): Promise<void>
}

/** A live phone's socket as the policy's handset. */
export function sessionHandset(session: WhatsAppSession): CallHandset {
  return {
    reject: (call) => session.rejectCall(call.callId, call.callerJid),
    reply: async (call, text) => {
      const waMessageId = waMessageIdFor(`call:${call.phoneId}:${call.callId}`, 0)
      await session.sendPart({ waMessageId, toJid: jidOfAddress(call.caller), text })
    },
  }
}

/** What the policy did with a call: rejected it, and whether the caller got the reply text. */
export interface CallPolicyOutcome {
  rejected: boolean
  replied: boolean
}

/**
 * The policy of the phone applied to a new call: reject it, and answer the caller with the
 * reply text unless they got it within the hour (claimed in the store per environment, so a
 * restart or another node does not send it twice). A reject WhatsApp does not take leaves the
 * call ringing and is logged once at warn: the operator's policy did not hold for that call.
 */
export async function applyCallPolicy(ctx: DomainContext, call: CallRow, handset: CallHandset): Promise<CallPolicyOutcome> {
  const policy = await ctx.store.findCallPolicy(call.phoneId)
  if (!policy?.rejectCalls) return { rejected: false, replied: false }
  try {
    await handset.reject(call)
  } catch (err) {
    ctx.logger.warn("rejecting a call under the phone's call policy failed; it rings on", { phoneId: call.phoneId, callId: call.callId, err })
    return { rejected: false, replied: false }
  }
  await ctx.store.write(async (q, tx) => {
    const phone = await q.findPhone(call.phoneId)
    if (phone) await endCallIn(ctx, q, tx, call, phone.accountId, "rejected", ctx.clock.nowMs())
  })
  if (policy.replyText === null || call.isGroup) return { rejected: true, replied: false }
  const claimed = await ctx.store.write(async (q) => q.claimCallReply(call.phoneId, call.env, call.caller, ctx.clock.nowMs(), CALL_REPLY_WINDOW_MS))
  if (!claimed) return { rejected: true, replied: false }
  const text = policy.replyText
  const replied = await handset.reply(call, text).then(
    () => true,
    (err) => {
      ctx.logger.warn("sending the call policy's reply text failed", { phoneId: call.phoneId, callId: call.callId, err })
      return false
    },
  )
  return { rejected: true, replied }
}

/**
 * The `call` callback of one phone's session: steps are handled one after the other, so that an
 * offer is recorded before the end that follows it in the same burst.
 */
export function callEventsFor(ctx: DomainContext, phoneId: string, session: () => WhatsAppSession): (signal: CallSignal) => void {
  let chain: Promise<void> = Promise.resolve()
  return (signal) => {
    chain = chain
      .then(async () => {
        const call = await recordCallSignal(ctx, phoneId, signal)
        if (call) await applyCallPolicy(ctx, call, sessionHandset(session()))
      })
      .catch((err) => ctx.logger.error("recording an incoming call failed", { phoneId, callId: signal.callId, err }))
  }
}
