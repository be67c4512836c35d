import { Type } from "@sinclair/typebox"
import { markInboundRead } from "../../../domain/inbound-reads"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { ReadReceipt } from "../../models/message-actions"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"

const InboundIdParams = Type.Object({ messageId: Type.String({ examples: ["inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }) })

/** POST /v1/messages/inbound/{messageId}/read */
export const inboundRead = (deps: HttpDeps) => (app: ApiApp) =>
  app.post(
    "/messages/inbound/:messageId/read",
    async ({ params, principal }) => ok(await markInboundRead(deps.ctx, deps.messageActions, principal, params.messageId)),
    {
      ...apiOperation({
        operationId: "markInboundRead",
        scopes: REQUIRED_SCOPES.send,
        tag: "Inbound messages",
        summary: "Mark a received message, and every earlier one in its chat, read",
        description:
          "Sends WhatsApp's read receipt (the sender's ticks turn blue, if the sender's read receipts are on) for this message and the earlier unread ones of its chat, " +
          "the newest 100 at most; the others are recorded as read too. A message already read answers `markedRead: 0` and sends nothing. " +
          "Live keys: the phone must be connected. Test keys: what the sandbox received (POST /v1/sandbox/inbound) is marked read at once.",
        path: InboundIdParams,
        success: { status: 200, schema: Envelope(ReadReceipt), description: "The receipt sent" },
        errors: [400, 401, 403, 404, 409, 429, 502, 503],
      }),
    },
  )
