import { accountProfile } from "../../../domain/accounts"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { Account, toAccount } from "../../models/account"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"

/** GET /v1/account */
export const accountGet = (deps: HttpDeps) => (app: ApiApp) =>
  app.get("/account", async ({ principal }) => ok(toAccount(await accountProfile(deps.ctx, principal.accountId, principal.env))), {
    ...apiOperation({
      operationId: "getAccount",
      scopes: REQUIRED_SCOPES.accountRead,
      tag: "Account",
      summary: "Get the account profile and stats (messages in the key's environment)",
      success: { status: 200, schema: Envelope(Account), description: "The account" },
      errors: [401, 403, 429],
    }),
  })
