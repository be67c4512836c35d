import { Type } from "@sinclair/typebox"
import {
  changeEndpoint,
  createEndpoint,
  listAccountEndpoints,
  listEndpointDeliveries,
  removeEndpoint,
  resendDelivery,
  rotateSecret,
} from "../../../domain/webhook-endpoints"
import type { HttpDeps } from "../../deps"
import { Envelope, ok, PageEnvelope, paginated } from "../../models/common"
import {
  CreateWebhookBody,
  ListDeliveriesQuery,
  toWebhookDelivery,
  toWebhookEndpoint,
  UpdateWebhookBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from "../../models/webhooks"
import { adminOperation } from "../../openapi/operation"
import type { AdminApp } from "../../plugins/admin-auth"
import { parseJsonBody, parseQuery, type RawBody } from "../../validation"

const AccountIdParams = Type.Object({ accountId: Type.String() })
const WebhookIdParams = Type.Object({ webhookId: Type.String() })
const DeliveryIdParams = Type.Object({ deliveryId: Type.String() })
const TAG = "Admin: webhooks"

/** Webhook endpoints, their secrets, deliveries and resends (docs/decisions.md § "Operator surface"). */
export const adminWebhooks = (deps: HttpDeps) => (app: AdminApp) =>
  app
    .get("/accounts/:accountId/webhooks", async ({ params }) => ok((await listAccountEndpoints(deps.ctx, params.accountId)).map(toWebhookEndpoint)), {
      ...adminOperation({
        operationId: "listWebhookEndpoints",
        tag: TAG,
        summary: "List an account's webhook endpoints (never their secrets)",
        path: AccountIdParams,
        success: { status: 200, schema: Envelope(Type.Array(WebhookEndpoint)), description: "Endpoints" },
        errors: [401, 404, 429],
      }),
    })
    .post(
      "/accounts/:accountId/webhooks",
      async ({ body, params, set }) => {
        const input = parseJsonBody(CreateWebhookBody, body as RawBody)
        const row = await createEndpoint(deps.ctx, {
          accountId: params.accountId,
          env: input.environment,
          url: input.url,
          events: input.events,
        })
        set.status = 201
        return ok({ ...toWebhookEndpoint(row), secret: row.secret })
      },
      {
        ...adminOperation({
          operationId: "createWebhookEndpoint",
          tag: TAG,
          summary: "Add a webhook endpoint; its signing secret is in this response only",
          path: AccountIdParams,
          body: CreateWebhookBody,
          success: { status: 201, schema: Envelope(WebhookEndpointWithSecret), description: "The endpoint and its secret" },
          errors: [400, 401, 404, 429],
        }),
      },
    )
    .patch(
      "/webhooks/:webhookId",
      async ({ body, params }) => {
        const input = parseJsonBody(UpdateWebhookBody, body as RawBody)
        return ok(toWebhookEndpoint(await changeEndpoint(deps.ctx, params.webhookId, input)))
      },
      {
        ...adminOperation({
          operationId: "updateWebhookEndpoint",
          tag: TAG,
          summary: "Change an endpoint's URL, events or enabled flag",
          path: WebhookIdParams,
          body: UpdateWebhookBody,
          success: { status: 200, schema: Envelope(WebhookEndpoint), description: "The endpoint" },
          errors: [400, 401, 404, 429],
        }),
      },
    )
    .delete("/webhooks/:webhookId", async ({ params }) => ok(toWebhookEndpoint(await removeEndpoint(deps.ctx, params.webhookId))), {
      ...adminOperation({
        operationId: "deleteWebhookEndpoint",
        tag: TAG,
        summary: "Remove an endpoint and its delivery history",
        path: WebhookIdParams,
        success: { status: 200, schema: Envelope(WebhookEndpoint), description: "The removed endpoint" },
        errors: [401, 404, 429],
      }),
    })
    .post(
      "/webhooks/:webhookId/rotate-secret",
      async ({ params }) => {
        const row = await rotateSecret(deps.ctx, params.webhookId)
        return ok({ ...toWebhookEndpoint(row), secret: row.secret })
      },
      {
        ...adminOperation({
          operationId: "rotateWebhookSecret",
          tag: TAG,
          summary: "Issue a new signing secret; the old one keeps signing beside it for 24 hours",
          path: WebhookIdParams,
          success: { status: 200, schema: Envelope(WebhookEndpointWithSecret), description: "The endpoint and its new secret" },
          errors: [401, 404, 429],
        }),
      },
    )
    .get(
      "/webhooks/:webhookId/deliveries",
      async ({ params, query }) => {
        const q = parseQuery(ListDeliveriesQuery, query)
        const page = await listEndpointDeliveries(deps.ctx, params.webhookId, {
          status: q.status as "pending" | "succeeded" | "failed" | undefined,
          page: q.page ?? 1,
          limit: q.limit ?? 20,
        })
        return paginated(page.rows.map(toWebhookDelivery), page.page, page.limit, page.total)
      },
      {
        ...adminOperation({
          operationId: "listWebhookDeliveries",
          tag: TAG,
          summary: "An endpoint's deliveries, newest first, with every attempt",
          path: WebhookIdParams,
          query: ListDeliveriesQuery,
          success: { status: 200, schema: PageEnvelope(WebhookDelivery), description: "Deliveries" },
          errors: [400, 401, 404, 429],
        }),
      },
    )
    .post(
      "/deliveries/:deliveryId/resend",
      async ({ params, set }) => {
        const created = await resendDelivery(deps.ctx, params.deliveryId)
        set.status = 201
        return ok(toWebhookDelivery(created))
      },
      {
        ...adminOperation({
          operationId: "resendWebhookDelivery",
          tag: TAG,
          summary: "Deliver an event again, as a new delivery due now",
          path: DeliveryIdParams,
          success: { status: 201, schema: Envelope(WebhookDelivery), description: "The new delivery" },
          errors: [401, 404, 409, 429],
        }),
      },
    )
