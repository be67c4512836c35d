import { Type } from "@sinclair/typebox"
import { getAccount } from "../../../domain/accounts"
import { addPhone, findPhoneAnywhere, listPhones, removePhone } from "../../../domain/phones"
import type { HttpDeps } from "../../deps"
import { AddPhoneBody, AdminPhone, toAdminPhone } from "../../models/admin"
import { Envelope, ok } from "../../models/common"
import { adminOperation } from "../../openapi/operation"
import type { AdminApp } from "../../plugins/admin-auth"
import { parseJsonBody, type RawBody } from "../../validation"

const AccountIdParams = Type.Object({ accountId: Type.String() })
const PhoneIdParams = Type.Object({ phoneId: Type.String() })

/** Phone management: list and add per account, remove by id. */
export const adminPhones = (deps: HttpDeps) => (app: AdminApp) =>
  app
    .get(
      "/accounts/:accountId/phones",
      async ({ params }) => {
        await getAccount(deps.ctx, params.accountId)
        return ok((await listPhones(deps.ctx, params.accountId)).map(toAdminPhone))
      },
      {
        ...adminOperation({
          operationId: "listAccountPhoneNumbers",
          tag: "Admin: phones",
          summary: "List an account's phones",
          path: AccountIdParams,
          success: { status: 200, schema: Envelope(Type.Array(AdminPhone)), description: "Phones" },
          errors: [401, 404, 429],
        }),
      },
    )
    .post(
      "/accounts/:accountId/phones",
      async ({ body, params, set }) => {
        const input = parseJsonBody(AddPhoneBody, body as RawBody)
        const phone = await addPhone(deps.ctx, params.accountId, input.phoneNumber, input.displayName)
        set.status = 201
        return ok(toAdminPhone(phone))
      },
      {
        ...adminOperation({
          operationId: "addPhoneNumber",
          tag: "Admin: phones",
          summary: "Add a phone to an account (status unpaired until paired)",
          path: AccountIdParams,
          body: AddPhoneBody,
          success: { status: 201, schema: Envelope(AdminPhone), description: "The phone" },
          errors: [400, 401, 404, 409, 429],
        }),
      },
    )
    .delete(
      "/phones/:phoneId",
      async ({ params }) => {
        // Unlink a paired device and fail its queued sends before the phone disappears.
        await deps.sessions.forget((await findPhoneAnywhere(deps.ctx, params.phoneId)).id)
        return ok(toAdminPhone(await removePhone(deps.ctx, params.phoneId)))
      },
      {
      ...adminOperation({
        operationId: "removePhoneNumber",
        tag: "Admin: phones",
        summary: "Remove a phone: unlink it if paired, fail its queued sends; its messages are kept",
        path: PhoneIdParams,
        success: { status: 200, schema: Envelope(AdminPhone), description: "The removed phone" },
        errors: [401, 404, 409, 429, 503],
      }),
      },
    )
