import { Type } from "@sinclair/typebox"
import { getInbound } from "../../../domain/inbound"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { InboundMessage, toInboundMessage } from "../../models/inbound"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"

const InboundIdParams = Type.Object({ messageId: Type.String({ examples: ["inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }) })

/** GET /v1/messages/inbound/{messageId} */
export const inboundGet = (deps: HttpDeps) => (app: ApiApp) =>
  app.get(
    "/messages/inbound/:messageId",
    async ({ params, principal }) => ok(toInboundMessage(await getInbound(deps.ctx, principal, params.messageId))),
    {
      ...apiOperation({
        operationId: "getInboundMessage",
        scopes: REQUIRED_SCOPES.messagesRead,
        tag: "Inbound messages",
        summary: "Get one inbound message",
        path: InboundIdParams,
        success: { status: 200, schema: Envelope(InboundMessage), description: "The inbound message" },
        errors: [401, 403, 404, 429],
      }),
    },
  )
