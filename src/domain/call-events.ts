import { Type } from "@sinclair/typebox"
import { named, OneOf, Timestamp } from "../lib/schema"
import { toIso } from "../lib/time"
import { CALL_OUTCOMES, type CallOutcome } from "../lib/vocabulary"
import type { CallRow } from "../store/calls"

/*
 * The data of the events an incoming call emits (docs/webhooks.md § "Calls"). The event catalogue
 * publishes these schemas; the builders below are the only way the domain makes their data. Each
 * call emits `call.received` once and `call.ended` once (src/domain/calls.ts).
 */

const CallId = Type.String({ description: "WhatsApp's id of the call; `POST /v1/calls/{callId}/reject` takes it.", examples: ["9A1F3C6E2B7D4E80A5C3B1D2E4F60718"] })
const PhoneId = Type.String({ description: "The phone that was called.", examples: ["ph_01jd0m3k7v5q9z8y6x4w2t0r1p"] })
const From = Type.String({ description: "The caller (E.164 when WhatsApp tells the number, else the `…@lid` JID).", examples: ["+14155550199"] })

/** How a call ended; the API's simulated calls (POST /v1/sandbox/calls) answer it too. */
export const CallOutcomeSchema = named("CallOutcome", OneOf(CALL_OUTCOMES, {
  description: "`missed`: nobody answered (the caller hung up, or it timed out); `rejected`: rejected by API, by the call policy or on the phone; `answered_elsewhere`: the phone or another linked device took it.",
}))

export const CallReceivedData = named(
  "CallReceivedEventData",
  Type.Object(
    {
      callId: CallId,
      phoneId: PhoneId,
      from: From,
      isVideo: Type.Boolean({ description: "A video call (else voice)." }),
      isGroup: Type.Boolean({ description: "A group call." }),
      at: Timestamp,
    },
    { description: "Someone is calling a phone (a live one, or a test key's through POST /v1/sandbox/calls); it rings until it ends." },
  ),
)

export const CallEndedData = named(
  "CallEndedEventData",
  Type.Object(
    {
      callId: CallId,
      phoneId: PhoneId,
      from: From,
      outcome: CallOutcomeSchema,
      at: Timestamp,
    },
    { description: "An incoming call ended." },
  ),
)

export function buildCallReceivedData(call: CallRow): typeof CallReceivedData.static {
  return { callId: call.callId, phoneId: call.phoneId, from: call.caller, isVideo: call.isVideo, isGroup: call.isGroup, at: toIso(call.offeredAtMs) }
}

export function buildCallEndedData(call: CallRow, outcome: CallOutcome, atMs: number): typeof CallEndedData.static {
  return { callId: call.callId, phoneId: call.phoneId, from: call.caller, outcome, at: toIso(atMs) }
}

/** The catalogue's entries for incoming calls (event-catalogue.ts composes every area's). */
export const CALL_EVENT_ENTRIES = {
  "call.received": { data: CallReceivedData, firesWhen: "Someone called a live phone, or POST /v1/sandbox/calls simulated a call (once per call)." },
  "call.ended": { data: CallEndedData, firesWhen: "An incoming call ended: missed, rejected or answered on another device (once per call)." },
} as const
