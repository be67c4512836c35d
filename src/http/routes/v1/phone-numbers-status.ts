import { resolvePhone } from "../../../domain/phones"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { PhoneIdParams, PhoneStatus, toPhoneStatus } from "../../models/phones"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"

/** GET /v1/phone-numbers/{id}/status */
export const phoneNumbersStatus = (deps: HttpDeps) => (app: ApiApp) =>
  app.get(
    "/phone-numbers/:id/status",
    async ({ params, principal }) => ok(toPhoneStatus(await resolvePhone(deps.ctx, principal.accountId, params.id))),
    {
      ...apiOperation({
        operationId: "getPhoneNumberStatus",
        scopes: REQUIRED_SCOPES.phoneNumbersRead,
        tag: "Phone numbers",
        summary: "Get a phone's connection state",
        path: PhoneIdParams,
        success: { status: 200, schema: Envelope(PhoneStatus), description: "Connection state" },
        errors: [401, 403, 404, 429],
      }),
    },
  )
