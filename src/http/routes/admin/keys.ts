import { Type } from "@sinclair/typebox"
import { createApiKey, listApiKeys, revokeApiKey } from "../../../domain/api-keys"
import { errors } from "../../../lib/errors"
import type { HttpDeps } from "../../deps"
import { ApiKeyRecord, CreatedApiKey, CreateKeyBody, toApiKeyRecord } from "../../models/admin"
import { Envelope, ok } from "../../models/common"
import { adminOperation } from "../../openapi/operation"
import type { AdminApp } from "../../plugins/admin-auth"
import { parseJsonBody, type RawBody } from "../../validation"

const AccountIdParams = Type.Object({ accountId: Type.String() })
const KeyIdParams = Type.Object({ keyId: Type.String() })

/** Key management: list and create per account, revoke by id. */
export const adminKeys = (deps: HttpDeps) => (app: AdminApp) =>
  app
    .get("/accounts/:accountId/keys", async ({ params }) => ok((await listApiKeys(deps.ctx, params.accountId)).map(toApiKeyRecord)), {
      ...adminOperation({
        operationId: "listApiKeys",
        tag: "Admin: API keys",
        summary: "List an account's key records (never the keys)",
        path: AccountIdParams,
        success: { status: 200, schema: Envelope(Type.Array(ApiKeyRecord)), description: "Key records" },
        errors: [401, 404, 429],
      }),
    })
    .post(
      "/accounts/:accountId/keys",
      async ({ body, params, set }) => {
        const input = parseJsonBody(CreateKeyBody, body as RawBody)
        const expiresAtMs = input.expiresAt === undefined ? null : Date.parse(input.expiresAt)
        if (Number.isNaN(expiresAtMs)) throw errors.validation(["expiresAt must be an ISO 8601 timestamp"])
        const { row, key } = await createApiKey(deps.ctx, {
          accountId: params.accountId,
          env: input.environment,
          scopes: input.scopes,
          name: input.name,
          expiresAtMs,
        })
        set.status = 201
        return ok({ ...toApiKeyRecord(row), key })
      },
      {
        ...adminOperation({
          operationId: "createApiKey",
          tag: "Admin: API keys",
          summary: "Create an API key; the key is in this response only",
          path: AccountIdParams,
          body: CreateKeyBody,
          success: { status: 201, schema: Envelope(CreatedApiKey), description: "The key record and the key" },
          errors: [400, 401, 404, 429],
        }),
      },
    )
    .delete("/keys/:keyId", async ({ params }) => ok(toApiKeyRecord(await revokeApiKey(deps.ctx, params.keyId))), {
      ...adminOperation({
        operationId: "revokeApiKey",
        tag: "Admin: API keys",
        summary: "Revoke a key; it is refused from its next request on",
        path: KeyIdParams,
        success: { status: 200, schema: Envelope(ApiKeyRecord), description: "The revoked key record" },
        errors: [401, 404, 429],
      }),
    })
