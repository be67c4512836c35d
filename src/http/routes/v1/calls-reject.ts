import { rejectCallByApi } from "../../../domain/call-actions"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { CallIdParams, RejectCallBody } from "../../models/calls"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, type RawBody } from "../../validation"

/** POST /v1/calls/{callId}/reject */
export const callsReject = (deps: HttpDeps) => (app: ApiApp) =>
  app.post(
    "/calls/:callId/reject",
    async ({ body, params, principal, set }) => {
      const { fromPhoneId } = parseJsonBody(RejectCallBody, body as RawBody)
      await rejectCallByApi(deps.ctx, deps.presence.links, principal, params.callId, fromPhoneId)
      set.status = 204
      return undefined
    },
    {
      ...apiOperation({
        operationId: "rejectCall",
        scopes: REQUIRED_SCOPES.send,
        tag: "Calls",
        summary: "Reject an incoming call while it rings",
        description:
          "Declines the call named by a `call.received` event, as the phone's decline button does; emits `call.ended` with outcome `rejected`. " +
          "409 when the call has ended (missed, rejected or answered). Live keys: the phone must be connected. " +
          "Test keys: a call POST /v1/sandbox/calls simulated is rejected at once; any other call is 404.",
        path: CallIdParams,
        body: RejectCallBody,
        success: { status: 204, description: "Rejected" },
        errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
      }),
    },
  )
