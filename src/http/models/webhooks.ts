import { Type } from "@sinclair/typebox"
import { webhookDeliveryView, webhookEndpointView } from "../../domain/api-views"
import { EVENT_NAMES } from "../../domain/event-catalogue"
import { EVENTS_RULE, WEBHOOK_URL_MAX_LENGTH, type DeliveryWithAttempts } from "../../domain/webhook-endpoints"
import { EVENT_GROUPS } from "../../lib/event-filter"
import { named, OneOf, withDomainRules } from "../../lib/schema"
import { DELIVERY_STATUSES } from "../../lib/vocabulary"
import type { EndpointRow } from "../../store/webhooks"
import { Environment } from "./admin"
import { NullableTimestamp, PageQueryFields, Timestamp } from "./common"
import { explainUnknownFields } from "../validation"

/**
 * `["*"]` for every event, or event names of the catalogue. The shape check wants a non-empty
 * list of strings; the domain checks the names, so a bad URL and a bad event list are reported
 * together, and the published schema carries the names.
 */
const EventsField = withDomainRules(
  Type.Array(Type.String(), {
    minItems: 1,
    examples: [["message.delivered", "message.read"], ["*"]],
    description: `["*"] for every event, or any of: ${EVENT_NAMES.join(", ")}; or groups, each taking every event of its prefix: ${EVENT_GROUPS.join(", ")}`,
    errorMessage: EVENTS_RULE,
  }),
  {
    anyOf: [
      Type.Array(Type.Literal("*"), { maxItems: 1, description: "Every event, present and future." }),
      Type.Array(Type.Union([named("EventName", OneOf(EVENT_NAMES)), named("EventGroup", OneOf(EVENT_GROUPS))])),
    ],
  },
)

const UrlField = withDomainRules(
  Type.String({
    minLength: 1,
    maxLength: WEBHOOK_URL_MAX_LENGTH,
    description: "An absolute http:// or https:// URL without credentials; private addresses are allowed.",
    examples: ["https://hooks.example.com/wagate"],
    errorMessage: "url must be an absolute http:// or https:// URL of at most 2048 characters",
  }),
  { pattern: "^[Hh][Tt][Tt][Pp][Ss]?://" },
)

const WebhookEndpointFields = {
  id: Type.String({ examples: ["wh_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
  accountId: Type.String(),
  environment: Environment,
  url: Type.String(),
  events: Type.Array(Type.String(), { description: `["*"], or event names and groups (\`message.*\`).` }),
  enabled: Type.Boolean(),
  previousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], {
    description: "While set and in the future, the rotated-out secret still signs beside the current one.",
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}

export const WebhookEndpoint = named("WebhookEndpoint", Type.Object(WebhookEndpointFields))

export const WebhookEndpointWithSecret = named(
  "WebhookEndpointWithSecret",
  Type.Object({
    ...WebhookEndpointFields,
    secret: Type.String({ description: "The signing secret (whsec_…). Shown only in this response." }),
  }),
)

/** The operator's view of an endpoint, without its secret. */
export function toWebhookEndpoint(row: EndpointRow): typeof WebhookEndpoint.static {
  return webhookEndpointView(row)
}

export const CreateWebhookBody = named(
  "CreateWebhookEndpointRequest",
  Type.Object({ url: UrlField, environment: Environment, events: EventsField }, { additionalProperties: false }),
)

export const UpdateWebhookBody = explainUnknownFields(
  named(
    "UpdateWebhookEndpointRequest",
    Type.Object(
      {
        url: Type.Optional(UrlField),
        events: Type.Optional(EventsField),
        enabled: Type.Optional(Type.Boolean({ errorMessage: "enabled must be true or false" })),
      },
      { additionalProperties: false },
    ),
  ),
  { environment: "environment cannot be changed: remove the endpoint and add it again in the other environment" },
)

export const DeliveryStatus = named("WebhookDeliveryStatus", OneOf(DELIVERY_STATUSES, {
  errorMessage: `status must be one of ${DELIVERY_STATUSES.join(", ")}`,
}))

export const ListDeliveriesQuery = Type.Object({ status: Type.Optional(DeliveryStatus), ...PageQueryFields }, { additionalProperties: false })

export const WebhookAttempt = named("WebhookAttempt", Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  attemptedAt: Timestamp,
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  latencyMs: Type.Integer({ minimum: 0 }),
  responseBody: Type.Union([Type.String(), Type.Null()], {
    description: "The start of the receiver's answer: at most 256 characters (an ellipsis marks a cut), control characters escaped as \\n, \\x1b and so on.",
  }),
}))

export const WebhookDelivery = named("WebhookDelivery", Type.Object({
  id: Type.String({ examples: ["whd_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
  eventId: Type.String({ examples: ["evt_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
  event: Type.String({ description: "The event name.", examples: ["message.delivered"] }),
  endpointId: Type.String(),
  status: DeliveryStatus,
  attemptCount: Type.Integer({ minimum: 0 }),
  nextAttemptAt: NullableTimestamp,
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  resentFrom: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
  attempts: Type.Array(WebhookAttempt),
}))

/** The operator's view of a delivery and its attempts. */
export function toWebhookDelivery(d: DeliveryWithAttempts): typeof WebhookDelivery.static {
  return webhookDeliveryView(d)
}
