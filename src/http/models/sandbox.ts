import { Type } from "@sinclair/typebox"
import { CONTENT_MAX_CODE_POINTS } from "../../domain/messages"
import { POLL_OPTIONS_MAX } from "../../domain/poll-rules"
import { CallOutcomeSchema } from "../../domain/call-events"
import type { SimulatedCallResult } from "../../domain/sandbox-calls"
import type { SimulatedInboundResult } from "../../domain/sandbox-inbound"
import { E164_PATTERN } from "../../lib/formats"
import { named, Nullable, Timestamp, withDomainRules } from "../../lib/schema"
import { toIso } from "../../lib/time"
import { InboundMessage, toInboundMessage } from "./inbound"
import { ContactCardSchema, LocationSchema } from "./messages"
import { PollResults } from "./polls"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

/*
 * The sandbox's simulation routes (docs/api.md § "Sandbox inbound and calls"): what a contact
 * would send or how it would call, for test keys.
 */

const MESSAGE_ID_PATTERN = "^(msg|inmsg)_[0-9A-Za-z]{1,64}$"

const FromPhoneId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "The test key's phone that receives, as its E.164 number (recommended) or its phone id.",
  examples: ["+14155550123"],
  errorMessage: "fromPhoneId must be the receiving phone's E.164 number or id",
})

/** The request of `POST /v1/sandbox/inbound`: exactly one of content, location, contact, reaction and pollVote. */
export const SandboxInboundBody = explainUnknownFields(
  named(
    "SandboxInboundRequest",
    Type.Object(
      {
        fromPhoneId: FromPhoneId,
        from: withDomainRules(
          Type.String({ description: "The contact who sends, as E.164.", examples: ["+14155550199"], errorMessage: "from must be the contact's E.164 number (+ and 8–15 digits)" }),
          { pattern: E164_PATTERN },
        ),
        content: Type.Optional(
          withDomainRules(
            Type.String({ description: "A text message, at most 4096 characters.", examples: ["Yes, tomorrow at 10 works for me"], errorMessage: "content must be a string" }),
            { pattern: "\\S", maxLength: CONTENT_MAX_CODE_POINTS },
          ),
        ),
        location: Type.Optional(LocationSchema),
        contact: Type.Optional(ContactCardSchema),
        reaction: Type.Optional(
          Type.Object(
            {
              messageId: Type.String({ pattern: MESSAGE_ID_PATTERN, description: "A message of this phone's chats: one it sent (`msg_…`) or received (`inmsg_…`).", examples: ["msg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
              emoji: Type.String({ maxLength: 64, description: 'One emoji, or `""` to take the contact\'s reaction back.', examples: ["👍"] }),
            },
            { additionalProperties: false, errorMessage: "reaction must be an object with strings messageId (msg_… or inmsg_…) and emoji" },
          ),
        ),
        pollVote: Type.Optional(
          Type.Object(
            {
              messageId: Type.String({ pattern: MESSAGE_ID_PATTERN, description: "A poll this phone sent (`msg_…`).", examples: ["msg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
              options: Type.Array(Type.String(), { maxItems: POLL_OPTIONS_MAX, description: "The options chosen, by name; `[]` withdraws the vote.", examples: [["Office"]] }),
            },
            { additionalProperties: false, errorMessage: "pollVote must be an object with a string messageId (msg_…) and an array options of option names" },
          ),
        ),
        replyTo: Type.Optional(
          Type.String({
            pattern: MESSAGE_ID_PATTERN,
            description: "With content, location or contact: the message of this phone's chats it quotes (`msg_…` or `inmsg_…`).",
            examples: ["msg_01jd0m3k7v5q9z8y6x4w2t0r1p"],
            errorMessage: "replyTo must be a msg_… or inmsg_… message id",
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)

/** What the sandbox recorded: exactly one of message, reaction and pollVote is set. */
export const SandboxInboundResult = named(
  "SandboxInboundResult",
  Type.Object({
    message: Nullable(InboundMessage),
    reaction: Nullable(
      Type.Object({
        messageId: Type.String({ examples: ["msg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
        from: Type.String({ examples: ["+14155550199"] }),
        emoji: Type.String({ examples: ["👍"] }),
        at: Timestamp,
      }),
    ),
    pollVote: Nullable(
      Type.Object({
        messageId: Type.String({ examples: ["msg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
        voter: Type.String({ examples: ["+14155550199"] }),
        poll: PollResults,
      }),
    ),
  }),
)

export function toSandboxInboundResult(r: SimulatedInboundResult): typeof SandboxInboundResult.static {
  return {
    message: r.kind === "message" ? toInboundMessage(r.message) : null,
    reaction: r.kind === "reaction" ? { messageId: r.messageId, from: r.from, emoji: r.emoji, at: toIso(r.atMs) } : null,
    pollVote: r.kind === "pollVote" ? { messageId: r.messageId, voter: r.voter, poll: r.poll } : null,
  }
}

/** The request of `POST /v1/sandbox/calls`. */
export const SandboxCallBody = explainUnknownFields(
  named(
    "SandboxCallRequest",
    Type.Object(
      {
        fromPhoneId: FromPhoneId,
        from: withDomainRules(
          Type.String({ description: "The caller, as E.164.", examples: ["+14155550199"], errorMessage: "from must be the caller's E.164 number (+ and 8–15 digits)" }),
          { pattern: E164_PATTERN },
        ),
        isVideo: Type.Optional(Type.Boolean({ description: "A video call; default false (voice).", errorMessage: "isVideo must be true or false" })),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)

/** A simulated call as it stands after the phone's call policy acted on it. */
export const SandboxCall = named(
  "SandboxCall",
  Type.Object({
    callId: Type.String({ description: "The call's id: `POST /v1/calls/{callId}/reject` takes it while it rings.", examples: ["9A1F3C6E2B7D4E80A5C3B1D2E4F60718"] }),
    phoneId: Type.String({ examples: ["ph_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
    from: Type.String({ examples: ["+14155550199"] }),
    isVideo: Type.Boolean(),
    status: Type.Union([Type.Literal("ringing"), Type.Literal("ended")], { description: "`ringing` until rejected; `ended` when the call policy rejected it." }),
    outcome: Nullable(CallOutcomeSchema),
    replySent: Type.Boolean({ description: "The call policy's reply text went to the caller (at most once per caller per hour)." }),
    at: Timestamp,
  }),
)

export function toSandboxCall(r: SimulatedCallResult): typeof SandboxCall.static {
  const { call } = r
  return {
    callId: call.callId,
    phoneId: call.phoneId,
    from: call.caller,
    isVideo: call.isVideo,
    status: call.endedAtMs === null ? "ringing" : "ended",
    outcome: call.outcome,
    replySent: r.policy.replied,
    at: toIso(call.offeredAtMs),
  }
}
