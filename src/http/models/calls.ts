import { Type } from "@sinclair/typebox"
import { CALL_REPLY_MAX_CHARS } from "../../domain/call-actions"
import { named, Nullable, Timestamp } from "../../lib/schema"
import { toIso } from "../../lib/time"
import type { CallPolicy as CallPolicyRow } from "../../store/calls"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

/** The path of `POST /v1/calls/{callId}/reject`: WhatsApp's call id, as `call.received` named it. */
export const CallIdParams = Type.Object({
  callId: Type.String({ pattern: "^[A-Za-z0-9._-]{1,64}$", examples: ["9A1F3C6E2B7D4E80A5C3B1D2E4F60718"], errorMessage: "callId must be the callId of a call.received event" }),
})

/** The request of `POST /v1/calls/{callId}/reject`. */
export const RejectCallBody = explainUnknownFields(
  named(
    "RejectCallRequest",
    Type.Object(
      {
        fromPhoneId: Type.String({
          minLength: 1,
          maxLength: 64,
          description: "The phone that is being called, as its E.164 number (recommended) or its phone id.",
          examples: ["+14155550123"],
          errorMessage: "fromPhoneId must be the called phone's E.164 number or id",
        }),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)

/** The request of `PUT /admin/v1/phones/{phoneId}/call-policy`. */
export const CallPolicyBody = explainUnknownFields(
  named(
    "CallPolicyRequest",
    Type.Object(
      {
        rejectCalls: Type.Boolean({ description: "Reject every incoming call as it rings.", errorMessage: "rejectCalls must be true or false" }),
        replyText: Type.Optional(
          Type.Union([Type.String({ maxLength: CALL_REPLY_MAX_CHARS }), Type.Null()], {
            description: `With rejectCalls, sent to the caller at most once per caller per hour (at most ${CALL_REPLY_MAX_CHARS} characters). Absent keeps the current text; null or "" sends none.`,
            examples: ["We cannot take calls here; please write to us."],
            errorMessage: `replyText must be text of at most ${CALL_REPLY_MAX_CHARS} characters, or null`,
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ),
  {},
)

/** A phone's call policy. */
export const CallPolicy = named(
  "CallPolicy",
  Type.Object({
    phoneId: Type.String({ examples: ["ph_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
    rejectCalls: Type.Boolean({ description: "Incoming calls are rejected as they ring." }),
    replyText: Nullable(Type.String({ description: "The text a rejected caller gets, at most once an hour; null sends none." })),
    updatedAt: Timestamp,
  }),
)

export function toCallPolicy(p: CallPolicyRow): typeof CallPolicy.static {
  return { phoneId: p.phoneId, rejectCalls: p.rejectCalls, replyText: p.replyText, updatedAt: toIso(p.updatedAtMs) }
}
