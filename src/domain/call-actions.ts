import { errors } from "../lib/errors"
import { boundedOutsideText } from "../lib/outside-text"
import type { CallPolicy } from "../store/calls"
import type { Principal } from "./api-keys"
import { endCallIn } from "./calls"
import type { DomainContext } from "./context"
import type { PhoneLinks } from "./phone-links"
import { findPhoneAnywhere, resolvePhone } from "./phones"
import { connectedSession } from "./wa-targets"

/*
 * What an API client and the operator do with calls (docs/api.md § "Calls", docs/admin.md §
 * "Call policy"): reject a ringing call, and read or set a phone's call policy.
 */

/** What a WhatsApp call id looks like (32 hex characters today), bounded. */
export const CALL_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/

/** The longest reply text a policy may send (docs/admin.md § "Call policy"). */
export const CALL_REPLY_MAX_CHARS = 1024

/**
 * Rejects a ringing call of the key's phone (`POST /v1/calls/{callId}/reject`). A key sees only
 * its environment's calls: live keys the calls WhatsApp reported, test keys those the sandbox
 * simulated (`POST /v1/sandbox/calls`), which end without telling WhatsApp. A live call's socket
 * is on the node holding the phone; elsewhere `connectedSession` names that node and the request
 * is forwarded there (src/http/forward.ts).
 */
export async function rejectCallByApi(ctx: DomainContext, links: PhoneLinks, principal: Principal, callId: string, fromPhoneId: string): Promise<void> {
  // A path segment that is no call id names no call; it is echoed bounded and escaped.
  if (!CALL_ID_PATTERN.test(callId)) throw errors.callNotFound(boundedOutsideText(callId, 64))
  const phone = await resolvePhone(ctx, principal.accountId, fromPhoneId)
  const call = await ctx.store.findCall(phone.id, principal.env, callId)
  if (!call) throw errors.callNotFound(callId)
  if (call.endedAtMs !== null) throw errors.callEnded(callId, call.outcome ?? "ended")
  if (principal.env === "live") {
    const session = await connectedSession(ctx, links, phone.id)
    try {
      await session.rejectCall(call.callId, call.callerJid)
    } catch (err) {
      throw errors.whatsappUnanswered("Rejecting the call with WhatsApp failed; retry after a moment", err)
    }
  }
  const ended = await ctx.store.write(async (q, tx) => endCallIn(ctx, q, tx, call, phone.accountId, "rejected", ctx.clock.nowMs()))
  if (!ended) {
    // It stopped ringing while WhatsApp took the reject (the caller hung up, another device answered).
    const now = await ctx.store.findCall(phone.id, principal.env, callId)
    throw errors.callEnded(callId, now?.outcome ?? "ended")
  }
}

/** A phone's call policy; a phone that never had one lets calls ring. */
export async function getCallPolicy(ctx: DomainContext, phoneRef: string): Promise<CallPolicy> {
  const phone = await findPhoneAnywhere(ctx, phoneRef)
  return (await ctx.store.findCallPolicy(phone.id)) ?? { phoneId: phone.id, rejectCalls: false, replyText: null, updatedAtMs: phone.createdAtMs }
}

/**
 * Sets a phone's call policy. `replyText` absent keeps the one it had, null or "" sends none;
 * past CALL_REPLY_MAX_CHARS is refused with one sentence.
 */
export async function setCallPolicy(ctx: DomainContext, phoneRef: string, input: { rejectCalls: boolean; replyText?: string | null }): Promise<CallPolicy> {
  const phone = await findPhoneAnywhere(ctx, phoneRef)
  const text = input.replyText === undefined ? undefined : (input.replyText ?? "").trim()
  if (text !== undefined && [...text].length > CALL_REPLY_MAX_CHARS) {
    throw errors.validation([`replyText must be at most ${CALL_REPLY_MAX_CHARS} characters`])
  }
  return ctx.store.write(async (q) => {
    const before = await q.findCallPolicy(phone.id)
    const replyText = text === undefined ? (before?.replyText ?? null) : text === "" ? null : text
    const policy: CallPolicy = { phoneId: phone.id, rejectCalls: input.rejectCalls, replyText, updatedAtMs: ctx.clock.nowMs() }
    await q.saveCallPolicy(policy)
    return policy
  })
}
