import { resolvePhone } from "../../../domain/phones"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { PhoneIdParams, PhoneNumber, toPhoneNumber } from "../../models/phones"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"

/** GET /v1/phone-numbers/{id}: by phone id or URL-encoded E.164. */
export const phoneNumbersGet = (deps: HttpDeps) => (app: ApiApp) =>
  app.get("/phone-numbers/:id", async ({ params, principal }) => ok(toPhoneNumber(await resolvePhone(deps.ctx, principal.accountId, params.id))), {
    ...apiOperation({
      operationId: "getPhoneNumber",
      scopes: REQUIRED_SCOPES.phoneNumbersRead,
      tag: "Phone numbers",
      summary: "Get one phone by id or URL-encoded E.164 number",
      path: PhoneIdParams,
      success: { status: 200, schema: Envelope(PhoneNumber), description: "The phone" },
      errors: [401, 403, 404, 429],
    }),
  })
