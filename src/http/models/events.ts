import { Type } from "@sinclair/typebox"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

/** The routes whose API key may come as `?access_token=` (src/http/plugins/api-auth.ts). */
export const EVENT_STREAM_PATH = "/v1/events"
export const EVENT_SOCKET_PATH = "/v1/events/ws"

/** An event id as the outbox makes them (src/lib/ids.ts): `evt_` and a lower-case ULID. */
export const EVENT_ID_PATTERN = "^evt_[0-9a-hjkmnp-tv-z]{26}$"

const after = {
  pattern: EVENT_ID_PATTERN,
  description: "Resume after this event: the events that came after it, then live. An id the log no longer holds gets `event: reset` first.",
  examples: ["evt_01jd0m3k7v5q9z8y6x4w2t0r1p"],
}

/** GET /v1/events (docs/webhooks.md § "Streams"). */
export const EventStreamQuery = explainUnknownFields(
  Type.Object(
    {
      types: Type.Optional(
        Type.String({
          description: "Comma-separated event names to stream (`message.received,group.*`), matched as webhook endpoints match them; every event when absent.",
          examples: ["message.received,group.*"],
        }),
      ),
      after: Type.Optional(Type.String(after)),
      access_token: Type.Optional(
        Type.String({
          description: "The API key, for clients that cannot set headers (EventSource, no-code tools); accepted on this route only and never logged. Prefer a key with `events:read` alone.",
        }),
      ),
    },
    { additionalProperties: false },
  ),
  ENVIRONMENT_FROM_KEY,
)

export const EventStreamHeaders = Type.Object({
  "Last-Event-ID": Type.Optional(Type.String({ ...after, description: "What browsers send when they reconnect: the same as `after` (which wins when both are sent)." })),
})
