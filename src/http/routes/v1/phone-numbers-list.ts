import { Type } from "@sinclair/typebox"
import { listPhones } from "../../../domain/phones"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { PhoneNumber, toPhoneNumber } from "../../models/phones"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"

/** GET /v1/phone-numbers */
export const phoneNumbersList = (deps: HttpDeps) => (app: ApiApp) =>
  app.get("/phone-numbers", async ({ principal }) => ok((await listPhones(deps.ctx, principal.accountId)).map(toPhoneNumber)), {
    ...apiOperation({
      operationId: "listPhoneNumbers",
      scopes: REQUIRED_SCOPES.phoneNumbersRead,
      tag: "Phone numbers",
      summary: "List the account's phones",
      success: { status: 200, schema: Envelope(Type.Array(PhoneNumber)), description: "Phones" },
      errors: [401, 403, 429],
    }),
  })
