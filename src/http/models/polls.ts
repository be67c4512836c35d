import { Type } from "@sinclair/typebox"
import { named, Timestamp } from "../../lib/schema"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

/** A poll's results (docs/api.md § "Polls"), the same for one of ours and a contact's. */
export const PollResults = named(
  "PollResults",
  Type.Object({
    question: Type.String({ examples: ["Where shall we meet?"] }),
    multipleAnswers: Type.Boolean(),
    options: Type.Array(Type.Object({ name: Type.String({ examples: ["Office"] }), votes: Type.Integer({ minimum: 0, examples: [3] }) }), {
      description: "Every option in the poll's order, with how many voters chose it now.",
    }),
    voters: Type.Array(
      Type.Object({
        voter: Type.String({ description: "E.164 when WhatsApp tells the number, else the `…@lid` JID.", examples: ["+14155550199"] }),
        options: Type.Array(Type.String(), { description: "What the voter chose in their newest vote; empty when they withdrew it.", examples: [["Office"]] }),
        at: Timestamp,
      }),
      { description: "Each voter once, with their newest vote, oldest vote first." },
    ),
  }),
)

/** The request of `POST /v1/messages/inbound/{messageId}/vote`. */
export const VoteBody = explainUnknownFields(
  named(
    "PollVoteRequest",
    Type.Object(
      {
        options: Type.Array(Type.String(), {
          maxItems: 12,
          description: "The options to choose, by name, as the poll lists them; one at most for a single-answer poll; `[]` withdraws the vote.",
          examples: [["Office"]],
          errorMessage: "options must be an array of option names",
        }),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)
