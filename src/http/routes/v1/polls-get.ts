import { pollResults } from "../../../domain/polls"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { MessageIdParams } from "../../models/messages"
import { PollResults } from "../../models/polls"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"

const OPERATION = {
  scopes: REQUIRED_SCOPES.messagesRead,
  tag: "Messages",
  path: MessageIdParams,
  success: { status: 200, schema: Envelope(PollResults), description: "The poll's tally and each voter's newest vote" },
  errors: [401, 403, 404, 429] as const,
}

/** GET /v1/messages/{messageId}/poll and GET /v1/messages/inbound/{messageId}/poll */
export const pollsGet = (deps: HttpDeps) => (app: ApiApp) =>
  app
    .get("/messages/:messageId/poll", async ({ params, principal }) => ok(await pollResults(deps.ctx, principal, params.messageId, "outbound")), {
      ...apiOperation({ ...OPERATION, errors: [...OPERATION.errors], operationId: "getPollResults", summary: "Get the results of a poll we sent" }),
    })
    .get("/messages/inbound/:messageId/poll", async ({ params, principal }) => ok(await pollResults(deps.ctx, principal, params.messageId, "inbound")), {
      ...apiOperation({ ...OPERATION, errors: [...OPERATION.errors], operationId: "getInboundPollResults", summary: "Get the results of a contact's poll" }),
    })
