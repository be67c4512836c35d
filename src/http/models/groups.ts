import { Type } from "@sinclair/typebox"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

export const Group = Type.Object({
  id: Type.String({ examples: ["120363000000000001@g.us"] }),
  name: Type.String({ examples: ["Sandbox Team"] }),
  isCommunityAnnounce: Type.Boolean(),
})

export const ListGroupsQuery = explainUnknownFields(
  Type.Object(
    {
      fromPhoneId: Type.String({
        minLength: 1,
        maxLength: 64,
        description: "Sender phone as E.164 (recommended) or phone id.",
        errorMessage: "fromPhoneId must be the sender phone's E.164 number or id",
      }),
    },
    { additionalProperties: false },
  ),
  ENVIRONMENT_FROM_KEY,
)
