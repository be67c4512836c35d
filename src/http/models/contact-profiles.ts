import { Type } from "@sinclair/typebox"
import { E164_PATTERN, LID_JID_PATTERN } from "../../lib/formats"
import { named, Nullable } from "../../lib/schema"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

/* Blocking and contact profiles (docs/api.md § "Blocking" and docs/api.md § "Contact profiles"). */

const CONTACT_PATTERN = `(${E164_PATTERN})|(${LID_JID_PATTERN})`

const FromPhoneId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "The phone that asks WhatsApp, as its E.164 number (recommended) or its phone id.",
  examples: ["+14155550123"],
  errorMessage: "fromPhoneId must be the phone's E.164 number or id",
})

const Contact = Type.String({
  pattern: CONTACT_PATTERN,
  description: "An E.164 number, or the `…@lid` JID WhatsApp names a hidden number by.",
  examples: ["+14155550199"],
  errorMessage: "contact must be an E.164 number (+ and 8–15 digits) or a …@lid JID",
})

/** The request of `POST /v1/contacts/block` and `/unblock`. */
export const BlockContactBody = explainUnknownFields(
  named("BlockContactRequest", Type.Object({ fromPhoneId: FromPhoneId, contact: Contact }, { additionalProperties: false })),
  ENVIRONMENT_FROM_KEY,
)

export const BlockState = named(
  "BlockState",
  Type.Object({ contact: Type.String({ examples: ["+14155550199"] }), blocked: Type.Boolean({ description: "True when the contact is blocked now." }) }),
)

export const BlockList = named(
  "BlockList",
  Type.Object({
    contacts: Type.Array(Type.String({ examples: ["+14155550199"] }), {
      description: "Every blocked contact: E.164 when WhatsApp names the number, else the `…@lid` JID.",
    }),
  }),
)

/** `?fromPhoneId=` of the block list, profiles and pictures. */
export const FromPhoneQuery = explainUnknownFields(Type.Object({ fromPhoneId: FromPhoneId }, { additionalProperties: false }), ENVIRONMENT_FROM_KEY)

export const ContactParams = Type.Object({ contact: Type.String({ examples: ["+14155550199"], description: "E.164 (URL-encode the `+` as `%2B`) or a `…@lid` JID." }) })

const Text = (description: string) => Nullable(Type.String({ description }))

export const ContactProfile = named(
  "ContactProfile",
  Type.Object({
    contact: Type.String({ examples: ["+14155550199"], description: "E.164 when known, else the `…@lid` JID." }),
    phoneNumber: Nullable(Type.String({ pattern: E164_PATTERN, examples: ["+14155550199"] })),
    lid: Nullable(Type.String({ pattern: LID_JID_PATTERN, examples: ["123456789012345@lid"] })),
    name: Text("The name the contact gave itself (push name), as wagate last heard it; null when unknown."),
    about: Text("The about text; null when there is none or the contact's privacy settings hide it."),
    aboutSetAt: Nullable(Type.String({ format: "date-time" })),
    isBusiness: Type.Boolean({ description: "True for a WhatsApp Business account." }),
    business: Nullable(
      Type.Object({
        description: Text("The business's description."),
        category: Text("Its category."),
        email: Text("Its email address."),
        websites: Type.Array(Type.String()),
        address: Text("Its address."),
      }),
    ),
    pictureUrl: Nullable(
      Type.String({
        description: "The wagate URL that serves the picture (`GET /v1/contacts/{contact}/picture`); null when there is none or privacy hides it.",
        examples: ["/v1/contacts/%2B14155550199/picture?fromPhoneId=%2B14155550123"],
      }),
    ),
  }),
)
