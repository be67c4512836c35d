import { errors } from "../lib/errors"
import { isE164 } from "../lib/formats"
import { sha256Hex } from "../lib/secrets"
import type { CallRow } from "../store/calls"
import type { Principal } from "./api-keys"
import { applyCallPolicy, offerCallIn, type CallHandset, type CallPolicyOutcome } from "./calls"
import type { DomainContext } from "./context"
import { resolvePhone } from "./phones"
import { refuseLiveKey } from "./sandbox-inbound"
import { jidOfAddress } from "./wa-targets"

/*
 * An incoming call simulated for a test key's phone (docs/api.md § "Sandbox inbound and calls"):
 * recorded and emitted by the live call path's own functions (offerCallIn, applyCallPolicy), in
 * the test environment, so `call.received`, the phone's call policy and `call.ended` behave as
 * for a live call, and `POST /v1/calls/{callId}/reject` works on it with the test key.
 */

/**
 * The sandbox's handset: there is no WhatsApp to tell of a reject or to carry the reply text, so
 * both succeed at once; what the policy did is recorded and answered all the same.
 */
const SANDBOX_HANDSET: CallHandset = {
  reject: async () => {},
  reply: async () => {},
}

/** What `POST /v1/sandbox/calls` asks for. */
export interface SimulatedCall {
  fromPhoneId: string
  from: string
  isVideo: boolean
}

/** The simulated call as it stands once the policy acted, and what the policy did. */
export interface SimulatedCallResult {
  call: CallRow
  policy: CallPolicyOutcome
}

/** Rings a test key's phone as `from` would, and applies the phone's call policy to the call. */
export async function simulateCall(ctx: DomainContext, principal: Principal, input: SimulatedCall): Promise<SimulatedCallResult> {
  refuseLiveKey(principal, "POST /v1/sandbox/calls")
  if (!isE164(input.from)) throw errors.validation(["from must be the caller's E.164 number (+ and 8–15 digits)"])
  const phone = await resolvePhone(ctx, principal.accountId, input.fromPhoneId)
  if (input.from === phone.phoneNumber) throw errors.validation(["from must be a caller's number, not the phone's own"])
  const call: CallRow = {
    phoneId: phone.id,
    env: "test",
    // 32 upper-case hex characters, the shape of WhatsApp's call ids, unique per simulated call.
    callId: sha256Hex(`sandbox-call:${phone.id}:${ctx.ids.newId("evt")}`).slice(0, 32).toUpperCase(),
    caller: input.from,
    callerJid: jidOfAddress(input.from),
    isVideo: input.isVideo,
    isGroup: false,
    offeredAtMs: ctx.clock.nowMs(),
    endedAtMs: null,
    outcome: null,
  }
  await ctx.store.write((q, tx) => offerCallIn(ctx, q, tx, phone.accountId, call))
  const policy = await applyCallPolicy(ctx, call, SANDBOX_HANDSET)
  return { call: (await ctx.store.findCall(phone.id, "test", call.callId)) ?? call, policy }
}
