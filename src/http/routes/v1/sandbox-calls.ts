import { simulateCall } from "../../../domain/sandbox-calls"
import { refuseLiveKey } from "../../../domain/sandbox-inbound"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { SandboxCall, SandboxCallBody, toSandboxCall } from "../../models/sandbox"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, type RawBody } from "../../validation"

/** POST /v1/sandbox/calls */
export const sandboxCalls = (deps: HttpDeps) => (app: ApiApp) =>
  app.post(
    "/sandbox/calls",
    async ({ body, principal, set }) => {
      // A live key is refused before its body is read: the route is not for it at all.
      refuseLiveKey(principal, "POST /v1/sandbox/calls")
      const { fromPhoneId, from, isVideo } = parseJsonBody(SandboxCallBody, body as RawBody)
      const result = await simulateCall(deps.ctx, principal, { fromPhoneId, from, isVideo: isVideo ?? false })
      set.status = 201
      return ok(toSandboxCall(result))
    },
    {
      ...apiOperation({
        operationId: "simulateCall",
        scopes: REQUIRED_SCOPES.send,
        tag: "Sandbox",
        summary: "Make the sandbox ring a phone, as an incoming call",
        description:
          "Test keys only (a live key is 403). Emits `call.received` as a live call does and applies the phone's call policy: " +
          "with `rejectCalls` the call ends at once (`call.ended`, outcome `rejected`) and the policy's reply text counts as sent at most once per caller per hour (`replySent`). " +
          "Otherwise the call rings until `POST /v1/calls/{callId}/reject` with the test key rejects it.",
        body: SandboxCallBody,
        success: { status: 201, schema: Envelope(SandboxCall), description: "The simulated call" },
        errors: [400, 401, 403, 404, 413, 429],
      }),
    },
  )
