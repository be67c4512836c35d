import type { CallSignal, CallStage } from "../gateway"
import { e164FromPnJid, isLidJid, isPnJid, normalizeUserJid, type PnForLid } from "./mapping"

/*
 * Baileys turns each `<call>` stanza into a `call` event with a status; the statuses that decide a
 * call's fate become wagate's stages, the media set-up ones (`preaccept`, `transport`,
 * `relaylatency`, `ringing`) are dropped (docs/live-whatsapp.md § "Calls"). Only an offer carries
 * `isVideo` and `isGroup` for sure; Baileys copies them onto later steps while it remembers the offer.
 */

/** A Baileys `call` event, as far as wagate reads it. */
export interface CallEventLike {
  id: string
  /** The stanza's `from` or the call's creator (the caller), PN or LID, maybe with a device. */
  from: string
  /** The caller's number JID when WhatsApp named it beside a LID (`caller_pn`). */
  callerPn?: string
  status: string
  date: Date
  isVideo?: boolean
  isGroup?: boolean
}

const STAGE_OF: Readonly<Record<string, CallStage>> = {
  offer: "offered",
  accept: "accepted_elsewhere",
  reject: "rejected",
  timeout: "timed_out",
  terminate: "terminated",
}

/** The stage a Baileys call status means, or null for the set-up steps wagate ignores. */
export function callStageOf(status: string): CallStage | null {
  return STAGE_OF[status] ?? null
}

/** The caller as wagate writes it: E.164 when WhatsApp named the number (or the LID's number is known), else the `…@lid` JID. */
async function callerAddress(call: CallEventLike, pnForLid: PnForLid): Promise<string> {
  for (const jid of [call.callerPn, call.from]) if (isPnJid(jid)) return e164FromPnJid(jid)
  const user = normalizeUserJid(call.from)
  if (!isLidJid(user)) return user
  const pn = await pnForLid(user).catch(() => null)
  return isPnJid(pn) ? e164FromPnJid(pn) : user
}

/** A call id as WhatsApp's devices make them (32 hex characters), bounded: anything else is not a call wagate keeps. */
const CALL_ID = /^[A-Za-z0-9._-]{1,64}$/

/** Maps one batch of Baileys call events, in order; a call event with no usable id or caller is dropped. */
export async function mapCalls(calls: readonly CallEventLike[], ctx: { pnForLid: PnForLid; nowMs: number }): Promise<CallSignal[]> {
  const out: CallSignal[] = []
  for (const call of calls) {
    const stage = callStageOf(call.status)
    if (stage === null || !CALL_ID.test(call.id ?? "") || !call.from || !call.from.includes("@")) continue
    const sentMs = call.date instanceof Date ? call.date.getTime() : Number.NaN
    // A stanza's own time when it has one (an offer held in the offline queue is older than now).
    const atMs = Number.isFinite(sentMs) && sentMs > 0 && sentMs <= ctx.nowMs ? sentMs : ctx.nowMs
    out.push({
      callId: call.id,
      stage,
      from: await callerAddress(call, ctx.pnForLid),
      callerJid: call.from,
      isVideo: call.isVideo === true,
      isGroup: call.isGroup === true,
      atMs,
    })
  }
  return out
}
