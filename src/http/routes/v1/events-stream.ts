import { Type } from "@sinclair/typebox"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import { errors } from "../../../lib/errors"
import { unknownEventFilter } from "../../../lib/event-filter"
import { boundedOutsideText } from "../../../lib/outside-text"
import type { HttpDeps } from "../../deps"
import { EVENT_ID_PATTERN, EventStreamHeaders, EventStreamQuery } from "../../models/events"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseQuery } from "../../validation"

const STREAM_HEADERS = { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache", "X-Accel-Buffering": "no" }

/** The `types` filter as names, each taking some event; a name that takes none is a 400 naming it. */
export function typesOf(raw: string | undefined): string[] | null {
  if (raw === undefined) return null
  const names = raw.split(",").map((n) => n.trim()).filter(Boolean)
  const unknown = unknownEventFilter(names)
  if (unknown !== null) throw errors.validation([`types: ${boundedOutsideText(unknown)} names no event`])
  return names.length === 0 ? null : names
}

/** GET /v1/events: the key's events as Server-Sent Events (docs/webhooks.md § "Streams"). */
export const eventsStream = (deps: HttpDeps) => (app: ApiApp) =>
  app.get(
    "/events",
    async ({ query, principal, request, server }) => {
      const q = parseQuery(EventStreamQuery, query)
      const lastEventId = request.headers.get("last-event-id")
      if (q.after === undefined && lastEventId !== null && !new RegExp(EVENT_ID_PATTERN).test(lastEventId)) {
        throw errors.validation(["Last-Event-ID: must be an event id (evt_ and 26 characters)"])
      }
      const body = await deps.eventStreams.open(principal, { types: typesOf(q.types), after: q.after ?? lastEventId })
      // The heartbeat (15 s) already beats the server's idle timeout (Elysia's 30 s); a stream
      // waits on its client, not on the timeout, even if the heartbeat is held up.
      server?.timeout(request, 0)
      return new Response(body, { headers: STREAM_HEADERS })
    },
    {
      ...apiOperation({
        operationId: "streamEvents",
        scopes: REQUIRED_SCOPES.eventsRead,
        tag: "Events",
        summary: "Stream the account's events (Server-Sent Events)",
        description:
          "The key's account and environment's events as they happen, each as `id: evt_…`, `event: <name>` and `data: <the webhook envelope>` (the `StreamEvent` schema), with a comment line every 15 s. " +
          "Resume with `Last-Event-ID` or `?after=`: what came after that event is replayed from the event log, in order, without gaps or repeats, then the stream goes live. " +
          "A consumer that stops reading gets `event: overflow` and the stream ends; at most 5 streams per key.",
        query: EventStreamQuery,
        headers: EventStreamHeaders,
        success: {
          status: 200,
          contentType: "text/event-stream",
          schema: Type.String({ description: "Server-Sent Events: `id:`, `event:` and `data:` lines per event, a blank line after each." }),
          description: "The event stream, open until the client leaves",
        },
        errors: [400, 401, 403, 429],
      }),
    },
  )
