import type { CallOutcome, Environment } from "../lib/vocabulary"

/*
 * Incoming WhatsApp calls and the per-phone call policy (docs/api.md § "Calls"). A call is kept
 * so that a reject by API and its end are judged on whichever node the request reaches and after
 * a restart: the row says whether the call is still ringing and whom a reject is addressed to.
 */

/** One incoming call of one phone. */
export interface CallRow {
  phoneId: string
  /** `live` for a call WhatsApp reported, `test` for one the sandbox simulated (POST /v1/sandbox/calls). */
  env: Environment
  /** WhatsApp's call id (chosen by the caller's device). */
  callId: string
  /** The caller: E.164 when WhatsApp told the number, else the `…@lid` JID. */
  caller: string
  /** Where a reject goes: the call's creator as WhatsApp named it. */
  callerJid: string
  isVideo: boolean
  isGroup: boolean
  offeredAtMs: number
  /** Null while the call rings. */
  endedAtMs: number | null
  outcome: CallOutcome | null
}

/** What a phone does with incoming calls. */
export interface CallPolicy {
  phoneId: string
  rejectCalls: boolean
  /** Sent to a rejected caller at most once an hour (CALL_REPLY_WINDOW_MS); null sends nothing. */
  replyText: string | null
  updatedAtMs: number
}
