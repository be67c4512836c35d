import { Type } from "@sinclair/typebox"
import { named } from "../../lib/schema"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

export const Group = named(
  "Group",
  Type.Object({
    id: Type.String({ description: "The group JID: send to it as `to`.", examples: ["120363000000000001@g.us"] }),
    name: Type.String({ examples: ["Sandbox Team"] }),
    isCommunityAnnounce: Type.Boolean({ description: "True for a community's announcement group." }),
  }),
)

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
