import { Type } from "@sinclair/typebox"
import { CHECK_NUMBERS_MAX } from "../../domain/contact-checks"
import { E164_PATTERN } from "../../lib/formats"
import { named, Nullable } from "../../lib/schema"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

/** The request of `POST /v1/contacts/check`. */
export const CheckContactsBody = explainUnknownFields(
  named(
    "CheckContactsRequest",
    Type.Object(
      {
        fromPhoneId: Type.String({
          minLength: 1,
          maxLength: 64,
          description: "The phone that asks WhatsApp, as its E.164 number (recommended) or its phone id.",
          examples: ["+14155550123"],
          errorMessage: "fromPhoneId must be the sender phone's E.164 number or id",
        }),
        numbers: Type.Array(Type.String({ pattern: E164_PATTERN, errorMessage: "is not an E.164 number (+ and 8–15 digits)" }), {
          minItems: 1,
          maxItems: CHECK_NUMBERS_MAX,
          description: `1 to ${CHECK_NUMBERS_MAX} E.164 numbers. A number listed twice is answered once.`,
          examples: [["+14155550199", "+12025550101"]],
          errorMessage: `numbers must be an array of 1 to ${CHECK_NUMBERS_MAX} E.164 numbers (+ and 8–15 digits)`,
        }),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)

/** One number's answer. */
export const ContactCheck = named(
  "ContactCheck",
  Type.Object({
    number: Type.String({ pattern: E164_PATTERN, examples: ["+14155550199"] }),
    onWhatsApp: Type.Boolean({ description: "True when the number has a WhatsApp account." }),
    jid: Nullable(
      Type.String({
        description: "The JID WhatsApp names for the number, null when it is not on WhatsApp. Send to the number (`to`), not to this.",
        examples: ["14155550199@s.whatsapp.net"],
      }),
    ),
  }),
)
