import { voteOnPoll } from "../../../domain/poll-vote-send"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { MessageIdParams } from "../../models/messages"
import { PollResults, VoteBody } from "../../models/polls"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, type RawBody } from "../../validation"

/** POST /v1/messages/inbound/{messageId}/vote */
export const pollsVote = (deps: HttpDeps) => (app: ApiApp) =>
  app.post(
    "/messages/inbound/:messageId/vote",
    async ({ body, params, principal }) => {
      const { options } = parseJsonBody(VoteBody, body as RawBody)
      return ok(await voteOnPoll(deps.ctx, deps.messageActions, principal, params.messageId, options))
    },
    {
      ...apiOperation({
        operationId: "voteOnPoll",
        scopes: REQUIRED_SCOPES.send,
        tag: "Messages",
        summary: "Vote on a contact's poll",
        description:
          "Votes as the phone that received the poll; a new vote replaces the previous one and `[]` withdraws it. Emits `poll.vote`. " +
          "409 when wagate holds no secret for the poll (it arrived before the phone was linked). Live keys only: the sandbox receives no polls (404).",
        path: MessageIdParams,
        body: VoteBody,
        success: { status: 200, schema: Envelope(PollResults), description: "The poll's results with our vote" },
        errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
      }),
    },
  )
