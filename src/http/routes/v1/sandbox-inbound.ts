import { refuseLiveKey, simulateInbound } from "../../../domain/sandbox-inbound"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { SandboxInboundBody, SandboxInboundResult, toSandboxInboundResult } from "../../models/sandbox"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, type RawBody } from "../../validation"

/** POST /v1/sandbox/inbound */
export const sandboxInbound = (deps: HttpDeps) => (app: ApiApp) =>
  app.post(
    "/sandbox/inbound",
    async ({ body, principal, set }) => {
      // A live key is refused before its body is read: the route is not for it at all.
      refuseLiveKey(principal, "POST /v1/sandbox/inbound")
      const input = parseJsonBody(SandboxInboundBody, body as RawBody)
      const result = await simulateInbound(deps.ctx, principal, input)
      set.status = 201
      return ok(toSandboxInboundResult(result))
    },
    {
      ...apiOperation({
        operationId: "simulateInbound",
        scopes: REQUIRED_SCOPES.send,
        tag: "Sandbox",
        summary: "Make the sandbox receive a contact's message, reaction or poll vote",
        description:
          "Test keys only (a live key is 403). Records what the contact `from` would have sent to the phone exactly as a live phone records it: " +
          "a text, location or contact card becomes an inbound message (`inmsg_…`, listed by GET /v1/messages/inbound) and emits `message.received`; " +
          "a reaction to one of this phone's messages emits `message.reaction`; a vote on a poll this phone sent is counted by GET /v1/messages/{messageId}/poll and emits `poll.vote`. " +
          "Send exactly one of content, location, contact, reaction and pollVote. A message id of another account, environment or phone is 404.",
        body: SandboxInboundBody,
        success: { status: 201, schema: Envelope(SandboxInboundResult), description: "What the sandbox recorded: one of message, reaction and pollVote" },
        errors: [400, 401, 403, 404, 413, 429],
      }),
    },
  )
