import { Type } from "@sinclair/typebox"
import type { ServerWebSocket } from "bun"
import type { AdmittedStream } from "../../../domain/event-streams"
import { wsSink } from "../../../domain/event-stream-ws"
import type { Principal } from "../../../domain/api-keys"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import { errors } from "../../../lib/errors"
import type { HttpDeps } from "../../deps"
import { EventStreamQuery } from "../../models/events"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseQuery } from "../../validation"
import { typesOf } from "./events-stream"

/** An admitted stream whose upgrade never opened a socket gives its place back after this long. */
const UNOPENED_MS = 10_000

/** One socket's stream: admitted before the upgrade, attached when the socket opens. */
interface SocketStream {
  admitted: AdmittedStream
  left: (() => void) | null
}

const { detail, scopes } = apiOperation({
  operationId: "streamEventsWebSocket",
  scopes: REQUIRED_SCOPES.eventsRead,
  tag: "Events",
  summary: "Stream the account's events (WebSocket)",
  description:
    "Upgrade to a WebSocket (`Connection: Upgrade`, `Upgrade: websocket`) and receive the key's account and environment's events as JSON text frames `{id, event, timestamp, data}`: " +
    "the event id and the webhook envelope's fields (the `StreamEvent` schema). Resume with `?after=`: what came after that event is replayed from the event log, in order, without gaps or repeats, then the stream goes live; " +
    "an id the log does not hold gets `{event: \"reset\", data: {after}}` first. The server pings every 15 s. A consumer that stops reading gets `{event: \"overflow\", data: {lastEventId}}` " +
    "and close code 1008; an unreadable event log `{event: \"error\"}` and 1011; a stopping server 1001. Refusals come before the upgrade as JSON errors; a GET without `Upgrade: websocket` is `426`. " +
    "At most 5 streams per key, Server-Sent Events and WebSocket together.",
  query: EventStreamQuery,
  success: {
    status: 101,
    description: "Switching Protocols: the WebSocket is open, one JSON text frame per event, until either side closes it",
  },
  // 426: the same GET without `Upgrade: websocket` (webSocketPlainGetGuard in src/http/allowed-methods.ts).
  errors: [400, 401, 403, 426, 429],
})

/** GET /v1/events/ws: the key's events over a WebSocket (docs/webhooks.md § "WebSocket"). */
export const eventsWs = (deps: HttpDeps) => (app: ApiApp) => {
  // A socket's data carries the upgraded request, which finds its stream.
  const streams = new WeakMap<Request, SocketStream>()
  return app.ws("/events/ws", {
    detail,
    scopes,
    // Runs before the upgrade, so a refusal is the API's JSON error, not a closed socket.
    upgrade: async (context) => {
      const { request, query, principal } = context as unknown as { request: Request; query: Record<string, string>; principal: Principal }
      if (!request.headers.get("sec-websocket-key")) throw errors.validation(["Sec-WebSocket-Key: a WebSocket upgrade needs it"])
      const q = parseQuery(EventStreamQuery, query)
      const admitted = await deps.eventStreams.admit(principal, { types: typesOf(q.types), after: q.after ?? null })
      streams.set(request, { admitted, left: null })
      // Abandoning is a no-op once the socket opened; it frees the place of an upgrade Bun refused.
      deps.ctx.clock.setTimer(UNOPENED_MS, () => admitted.abandon())
    },
    open(ws) {
      const stream = streams.get(ws.data.request)
      if (stream) stream.left = stream.admitted.attach(wsSink(ws.raw as ServerWebSocket<unknown>))
    },
    close(ws) {
      streams.get(ws.data.request)?.left?.()
    },
  })
}
