import { Type } from "@sinclair/typebox"
import { named } from "../../lib/schema"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

/* Labels made and put on chats (docs/api.md § "Labels"). */

/** The longest label name the API takes (WhatsApp's apps keep names short; the bound keeps rows small). */
export const LABEL_NAME_MAX = 100
/** WhatsApp's label palette: 20 colours, 0..19 (Baileys 7.0.0-rc14 lib/Types/Label.d.ts LabelColor). */
export const LABEL_COLOR_MAX = 19

const FromPhoneId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "The phone whose label this is, as its E.164 number (recommended) or its phone id.",
  examples: ["+14155550123"],
  errorMessage: "fromPhoneId must be the phone's E.164 number or id",
})

export const CreateLabelBody = explainUnknownFields(
  named(
    "CreateLabelRequest",
    Type.Object(
      {
        fromPhoneId: FromPhoneId,
        name: Type.String({
          minLength: 1,
          maxLength: LABEL_NAME_MAX,
          // Something besides spaces, and no control characters: the phone shows the name as it is.
          pattern: "^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$",
          examples: ["Paid"],
          errorMessage: `name must be 1 to ${LABEL_NAME_MAX} characters, not only spaces, without control characters`,
        }),
        color: Type.Integer({ minimum: 0, maximum: LABEL_COLOR_MAX, description: "WhatsApp's label palette index.", examples: [3], errorMessage: `color must be an integer from 0 to ${LABEL_COLOR_MAX}` }),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)

export const ChatLabelsBody = explainUnknownFields(
  named(
    "SetChatLabelsRequest",
    Type.Object(
      {
        fromPhoneId: FromPhoneId,
        labels: Type.Array(Type.String({ minLength: 1, maxLength: 20, pattern: "^[0-9]+$" }), {
          maxItems: 20,
          uniqueItems: true,
          description: "The chat's label ids as a whole (GET /v1/labels lists them); [] takes every label off.",
          examples: [["4"]],
          errorMessage: "labels must be a list of at most 20 distinct label ids",
        }),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)
