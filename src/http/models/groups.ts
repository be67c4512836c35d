import { Type } from "@sinclair/typebox"
import {
  GROUP_ACTION_PARTICIPANTS_MAX,
  GROUP_CREATE_PARTICIPANTS_MAX,
  GROUP_DESCRIPTION_MAX,
  GROUP_SUBJECT_MAX,
} from "../../domain/group-model"
import { E164_PATTERN, LID_JID_PATTERN } from "../../lib/formats"
import { named, Nullable, OneOf } from "../../lib/schema"
import { GROUP_MEMBER_ADD_MODES, GROUP_PARTICIPANT_ACTIONS, GROUP_PARTICIPANT_RESULTS } from "../../lib/vocabulary"
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

// ---- Groups this phone runs (docs/api.md § "Run groups: create, detail, settings, participants, invites, join, leave") ----

const FromPhoneId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "The phone that acts, as its E.164 number (recommended) or its phone id.",
  examples: ["+14155550123"],
  errorMessage: "fromPhoneId must be the sender phone's E.164 number or id",
})

const PARTICIPANT_PATTERN = `(${E164_PATTERN})|(${LID_JID_PATTERN})`
const Participant = Type.String({ pattern: PARTICIPANT_PATTERN, errorMessage: "is not an E.164 number or a …@lid id" })
const Subject = Type.String({
  minLength: 1,
  maxLength: GROUP_SUBJECT_MAX,
  examples: ["Weekend volunteers"],
  errorMessage: `subject must be 1 to ${GROUP_SUBJECT_MAX} characters`,
})
const Description = Type.String({
  maxLength: GROUP_DESCRIPTION_MAX,
  description: '`""` removes it.',
  errorMessage: `description must be at most ${GROUP_DESCRIPTION_MAX} characters`,
})

export const GroupIdParams = Type.Object({ groupId: Type.String({ examples: ["120363000000000001@g.us"] }) })

export const GroupSettings = named(
  "GroupSettings",
  Type.Object({
    announce: Type.Boolean({ description: "Only admins may post." }),
    locked: Type.Boolean({ description: "Only admins may change the subject, description and picture." }),
    memberAddMode: OneOf(GROUP_MEMBER_ADD_MODES, { description: "Who may add members." }),
    approvalMode: Type.Boolean({ description: "Admins approve who joins by link." }),
    ephemeralSeconds: Type.Integer({ description: "Disappearing messages: 0 (off), 86400, 604800 or 7776000.", examples: [0] }),
  }),
)

const PersonFields = {
  id: Type.String({ description: "E.164 when WhatsApp tells the number, else the `…@lid` id.", examples: ["+14155550199"] }),
  phoneNumber: Nullable(Type.String({ pattern: E164_PATTERN })),
  lid: Nullable(Type.String({ pattern: LID_JID_PATTERN })),
}

export const GroupDetail = named(
  "GroupDetail",
  Type.Object({
    id: Type.String({ examples: ["120363000000000001@g.us"] }),
    name: Type.String({ description: "The subject.", examples: ["Sandbox Team"] }),
    isCommunityAnnounce: Type.Boolean(),
    description: Nullable(Type.String()),
    owner: Nullable(Type.String({ description: "Who created the group: E.164 or `…@lid`." })),
    createdAt: Nullable(Type.String({ format: "date-time" })),
    settings: GroupSettings,
    participants: Type.Array(Type.Object({ ...PersonFields, isAdmin: Type.Boolean(), isSuperAdmin: Type.Boolean() })),
    pendingRequests: Type.Array(Type.Object(PersonFields), { description: "People waiting for an admin to approve their join." }),
    pictureUrl: Nullable(Type.String({ description: "wagate's URL of the group's picture; null when it has none.", examples: ["/v1/groups/120363000000000001%40g.us/picture?fromPhoneId=%2B14155550123"] })),
  }),
)

export const ParticipantResult = named(
  "GroupParticipantResult",
  Type.Object({
    participant: Type.String({ examples: ["+14155550199"] }),
    result: OneOf(GROUP_PARTICIPANT_RESULTS),
    errorCode: Type.Optional(Type.String({ description: "With `failed`: why (`already_in_group`, `not_allowed`, `no_request`, `invite_not_sent`, or WhatsApp's code)." })),
  }),
)

export const CreateGroupBody = explainUnknownFields(
  named(
    "CreateGroupRequest",
    Type.Object(
      {
        fromPhoneId: FromPhoneId,
        subject: Subject,
        participants: Type.Array(Participant, {
          minItems: 1,
          maxItems: GROUP_CREATE_PARTICIPANTS_MAX,
          examples: [["+14155550199", "+12025550106"]],
          errorMessage: `participants must list 1 to ${GROUP_CREATE_PARTICIPANTS_MAX} numbers (E.164) or …@lid ids`,
        }),
        description: Type.Optional(Description),
        idempotencyKey: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "Makes a retried create return the same group." })),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)

export const GroupCreated = named("GroupCreated", Type.Object({ group: GroupDetail, results: Type.Array(ParticipantResult) }))

export const GroupPhoneQuery = explainUnknownFields(Type.Object({ fromPhoneId: FromPhoneId }, { additionalProperties: false }), ENVIRONMENT_FROM_KEY)
export const GroupPhoneBody = explainUnknownFields(
  named("GroupPhoneRequest", Type.Object({ fromPhoneId: FromPhoneId }, { additionalProperties: false })),
  ENVIRONMENT_FROM_KEY,
)

export const UpdateGroupBody = explainUnknownFields(
  named(
    "UpdateGroupRequest",
    Type.Object(
      {
        fromPhoneId: FromPhoneId,
        subject: Type.Optional(Subject),
        description: Type.Optional(Description),
        announce: Type.Optional(Type.Boolean()),
        locked: Type.Optional(Type.Boolean()),
        memberAddMode: Type.Optional(OneOf(GROUP_MEMBER_ADD_MODES, { errorMessage: "memberAddMode must be admins or all" })),
        approvalMode: Type.Optional(Type.Boolean()),
        ephemeralSeconds: Type.Optional(Type.Integer({ description: "0, 86400, 604800 or 7776000.", errorMessage: "ephemeralSeconds must be 0, 86400, 604800 or 7776000" })),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)

export const GroupParticipantsBody = explainUnknownFields(
  named(
    "GroupParticipantsRequest",
    Type.Object(
      {
        fromPhoneId: FromPhoneId,
        action: OneOf(GROUP_PARTICIPANT_ACTIONS, { errorMessage: `action must be one of ${GROUP_PARTICIPANT_ACTIONS.join(", ")}` }),
        participants: Type.Array(Participant, {
          minItems: 1,
          maxItems: GROUP_ACTION_PARTICIPANTS_MAX,
          errorMessage: `participants must list 1 to ${GROUP_ACTION_PARTICIPANTS_MAX} numbers (E.164) or …@lid ids`,
        }),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)

export const GroupParticipantResults = named("GroupParticipantResults", Type.Object({ results: Type.Array(ParticipantResult) }))

export const GroupInvite = named(
  "GroupInvite",
  Type.Object({
    code: Type.String({ examples: ["AbCdEfGhIjKlMnOpQrStUv"] }),
    url: Type.String({ examples: ["https://chat.whatsapp.com/AbCdEfGhIjKlMnOpQrStUv"] }),
  }),
)

export const JoinGroupBody = explainUnknownFields(
  named(
    "JoinGroupRequest",
    Type.Object(
      {
        fromPhoneId: FromPhoneId,
        invite: Type.String({
          minLength: 1,
          maxLength: 200,
          description: "An invite code, or a https://chat.whatsapp.com/… link.",
          examples: ["https://chat.whatsapp.com/AbCdEfGhIjKlMnOpQrStUv"],
          errorMessage: "invite must be an invite code or a https://chat.whatsapp.com/… link",
        }),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)

export const JoinRequested = named("GroupJoinRequested", Type.Object({ status: Type.Literal("requested") }))
