import { Type } from "@sinclair/typebox"
import { getCallPolicy, setCallPolicy } from "../../../domain/call-actions"
import type { HttpDeps } from "../../deps"
import { CallPolicy, CallPolicyBody, toCallPolicy } from "../../models/calls"
import { Envelope, ok } from "../../models/common"
import { adminOperation } from "../../openapi/operation"
import type { AdminApp } from "../../plugins/admin-auth"
import { parseJsonBody, type RawBody } from "../../validation"

const PhoneIdParams = Type.Object({ phoneId: Type.String({ description: "The phone's id or E.164 number.", examples: ["ph_01jd0m3k7v5q9z8y6x4w2t0r1p"] }) })

/** A phone's call policy: read and set (docs/admin.md § "Call policy"). */
export const adminCallPolicy = (deps: HttpDeps) => (app: AdminApp) =>
  app
    .get("/phones/:phoneId/call-policy", async ({ params }) => ok(toCallPolicy(await getCallPolicy(deps.ctx, params.phoneId))), {
      ...adminOperation({
        operationId: "getCallPolicy",
        tag: "Admin: call policy",
        summary: "What a phone does with incoming calls",
        path: PhoneIdParams,
        success: { status: 200, schema: Envelope(CallPolicy), description: "The policy (calls ring when none was set)" },
        errors: [401, 404, 429],
      }),
    })
    .put(
      "/phones/:phoneId/call-policy",
      async ({ body, params }) => ok(toCallPolicy(await setCallPolicy(deps.ctx, params.phoneId, parseJsonBody(CallPolicyBody, body as RawBody)))),
      {
        ...adminOperation({
          operationId: "setCallPolicy",
          tag: "Admin: call policy",
          summary: "Reject a phone's incoming calls, with an optional reply text",
          description:
            "With `rejectCalls`, the node holding the phone rejects every incoming call as it rings (`call.ended` outcome `rejected`) and, " +
            "when `replyText` is set, sends it to the caller at most once per caller per hour (held in the database: a restart or another node does not send it again). " +
            "Group calls are rejected without a reply.",
          path: PhoneIdParams,
          body: CallPolicyBody,
          success: { status: 200, schema: Envelope(CallPolicy), description: "The policy now in force" },
          errors: [400, 401, 404, 413, 429],
        }),
      },
    )
