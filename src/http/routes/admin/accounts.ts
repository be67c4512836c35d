import { Type } from "@sinclair/typebox"
import { accountProfile, createAccount, listAccounts, updateAccount } from "../../../domain/accounts"
import type { HttpDeps } from "../../deps"
import { AdminAccount, CreateAccountBody, toAdminAccount, UpdateAccountBody } from "../../models/admin"
import { Envelope, ok } from "../../models/common"
import { adminOperation } from "../../openapi/operation"
import type { AdminApp } from "../../plugins/admin-auth"
import { parseJsonBody, type RawBody } from "../../validation"

const AccountIdParams = Type.Object({ accountId: Type.String() })

/** GET/POST /admin/v1/accounts and PATCH /admin/v1/accounts/{accountId}. */
export const adminAccounts = (deps: HttpDeps) => (app: AdminApp) =>
  app
    .get("/accounts", async () => ok(await Promise.all((await listAccounts(deps.ctx)).map(async (a) => toAdminAccount(await accountProfile(deps.ctx, a.id))))), {
      ...adminOperation({
        operationId: "listAccounts",
        tag: "Admin: accounts",
        summary: "List accounts",
        success: { status: 200, schema: Envelope(Type.Array(AdminAccount)), description: "Accounts" },
        errors: [401, 429],
      }),
    })
    .post(
      "/accounts",
      async ({ body, set }) => {
        const input = parseJsonBody(CreateAccountBody, body as RawBody)
        const account = await createAccount(deps.ctx, input.name, input.email)
        set.status = 201
        return ok(toAdminAccount(await accountProfile(deps.ctx, account.id)))
      },
      {
        ...adminOperation({
          operationId: "createAccount",
          tag: "Admin: accounts",
          summary: "Create an account (active subscription, default rate limit)",
          body: CreateAccountBody,
          success: { status: 201, schema: Envelope(AdminAccount), description: "The account" },
          errors: [400, 401, 429],
        }),
      },
    )
    .patch(
      "/accounts/:accountId",
      async ({ body, params }) => {
        const input = parseJsonBody(UpdateAccountBody, body as RawBody)
        await updateAccount(deps.ctx, params.accountId, input as Parameters<typeof updateAccount>[2])
        return ok(toAdminAccount(await accountProfile(deps.ctx, params.accountId)))
      },
      {
        ...adminOperation({
          operationId: "updateAccount",
          tag: "Admin: accounts",
          summary: "Change an account's name, e-mail, subscription or rate limit",
          path: AccountIdParams,
          body: UpdateAccountBody,
          success: { status: 200, schema: Envelope(AdminAccount), description: "The account" },
          errors: [400, 401, 404, 429],
        }),
      },
    )
