import { Type, type TSchema } from "@sinclair/typebox"
import { EVENT_CATALOGUE, EVENT_NAMES } from "../../domain/event-catalogue"
import { named, Timestamp } from "../../lib/schema"
import type { JsonObject, SchemaComponents } from "./json-schema"

/** How a receiver checks a delivery; the same words as docs/webhooks.md. */
export const SIGNATURE_DESCRIPTION =
  "`t=<unix seconds of this attempt>,v1=<hex>`. `v1` is the lowercase hex HMAC-SHA256 of `<t>.<raw body>`, keyed with the " +
  "endpoint's secret string exactly as shown (`whsec_` prefix included) as UTF-8 bytes. During a secret rotation the header " +
  "carries a second `v1`, one per secret, newest first; accept the request when any of them matches. Verify the raw body " +
  "before parsing it, and refuse a `t` more than 5 minutes away from your clock. Stripe's verifier accepts this format."

const DELIVERY_HEADERS: Record<string, JsonObject> = {
  "X-Service-Event": { description: "The event name.", required: true, schema: { type: "string", enum: EVENT_NAMES } },
  "X-Service-Event-Id": {
    description: "`evt_…`, one per event: the same on every retry and on a resend, so deduplicate on it.",
    required: true,
    schema: { type: "string" },
  },
  "X-Service-Delivery-Attempt": {
    description: "1 on the first attempt, 2 to 4 on retries; a resend starts again at 1.",
    required: true,
    schema: { type: "integer", minimum: 1 },
  },
  "X-Service-Signature": {
    description: SIGNATURE_DESCRIPTION,
    required: true,
    schema: { type: "string", pattern: "^t=[0-9]+(,v1=[0-9a-f]{64})+$" },
  },
}

/** A PascalCase name from an event name: `message.sent` → `MessageSent`. */
function pascal(event: string): string {
  return event
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("")
}

/**
 * The `webhooks` section: one POST per event, whose body is the `{event, timestamp, data}`
 * envelope with that event's data schema from the catalogue, and the delivery headers.
 */
export function webhooksSection(components: SchemaComponents): { section: Record<string, JsonObject>; streamEvent: JsonObject } {
  const section: Record<string, JsonObject> = {}
  const envelopes: TSchema[] = []
  for (const event of EVENT_NAMES) {
    const { data, firesWhen } = EVENT_CATALOGUE[event]
    const envelope = named(
      `${pascal(event)}Event`,
      Type.Object(
        {
          event: Type.Literal(event),
          timestamp: { ...Timestamp, description: "When the event happened (for message.delivered, deliveredAt)." },
          data,
        },
        { description: `The body of a ${event} delivery: the same bytes on every attempt.` },
      ),
    )
    envelopes.push(envelope)
    section[event] = {
      post: {
        operationId: `on${pascal(event)}`,
        summary: `${event}`,
        description: `${firesWhen} wagate POSTs this to every enabled endpoint of the account and environment subscribed to ${event} or "*".`,
        tags: ["Webhooks"],
        security: [{ webhookSignature: [] }],
        parameters: Object.entries(DELIVERY_HEADERS).map(([name, header]) => ({ name, in: "header", ...header })),
        requestBody: { required: true, content: { "application/json": { schema: components.ref(envelope) } } },
        responses: {
          "2XX": { description: "Received. Any 2xx within 15 seconds is success; anything else is retried 1, 5 and 15 minutes after the first attempt." },
          "410": { description: "Gone: wagate stops retrying this delivery." },
        },
      },
    }
  }
  // The streams (GET /v1/events and its WebSocket) carry the same envelopes; one schema names
  // them all, told apart by `event`, for clients that type a stream's frames.
  const streamEvent = components.ref(
    named(
      "StreamEvent",
      Type.Union(envelopes, {
        description: "One event as the streams carry it: the `data:` of a Server-Sent Event, or a WebSocket frame without its `id`. The envelope of a webhook delivery, told apart by `event`.",
      }),
    ),
  )
  return { section, streamEvent }
}
