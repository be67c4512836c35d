import { Type } from "@sinclair/typebox"
import { RECIPIENT_PATTERN } from "../../lib/formats"
import { named, OneOf } from "../../lib/schema"
import { PRESENCE_STATES } from "../../lib/vocabulary"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

/** The request of `POST /v1/presence`. */
export const PresenceBody = explainUnknownFields(
  named(
    "PresenceRequest",
    Type.Object(
      {
        fromPhoneId: Type.String({
          minLength: 1,
          maxLength: 64,
          description: "The phone that shows it, as its E.164 number (recommended) or its phone id.",
          examples: ["+14155550123"],
          errorMessage: "fromPhoneId must be the sender phone's E.164 number or id",
        }),
        to: Type.String({
          pattern: RECIPIENT_PATTERN,
          description: "The chat: an E.164 number, a group JID from GET /v1/groups, or a hidden number's `…@lid` JID.",
          examples: ["+14155550199"],
          errorMessage: "to must be an E.164 number (+ and 8–15 digits), a group JID or a …@lid JID",
        }),
        state: OneOf(PRESENCE_STATES, {
          description: "`typing` or `recording` (a voice note) shows it for about 25 s, or until `paused` or a message ends it.",
          examples: ["typing"],
          errorMessage: "state must be one of typing, recording, paused",
        }),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)
