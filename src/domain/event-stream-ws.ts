import type { StreamFrame, StreamSink } from "./event-stream"
import type { LoggedEvent } from "../store/event-streams"

/** The server side of one WebSocket, as Bun's `ServerWebSocket` offers it. */
export interface StreamSocket {
  /** Queues a text frame: bytes sent, -1 when queued behind backpressure, 0 when dropped (the socket is gone). */
  send(text: string): number
  ping(): number
  /** Bytes queued for the client and not yet written to it. */
  getBufferedAmount(): number
  close(code?: number, reason?: string): void
}

/**
 * Why a WebSocket stream ended, as its close code (docs/webhooks.md § "WebSocket"): each asks the
 * client to reconnect, resuming with `?after=` its last id.
 */
export const WS_CLOSE = {
  /** The server is stopping. */
  stopping: 1001,
  /** The consumer left more than the stream's buffer unread; an overflow frame came first. */
  overflow: 1008,
  /** The event log could not be read; an error frame came first. */
  error: 1011,
} as const

/**
 * One frame as a JSON text frame. An event is `{id, event, timestamp, data}`: its id, then the
 * webhook envelope's fields as the log holds them (the outbox writes the envelope as a JSON object,
 * src/webhooks/outbox.ts), so no event is parsed per stream.
 */
function wsText(frame: StreamFrame): string | null {
  switch (frame.kind) {
    case "event":
      return eventText(frame.event)
    case "reset":
      return JSON.stringify({ event: "reset", data: { after: frame.after } })
    case "overflow":
      return JSON.stringify({ event: "overflow", data: { lastEventId: frame.lastEventId } })
    case "error":
      return JSON.stringify({ event: "error", data: {} })
    case "connected":
    case "heartbeat":
      // The open socket says the stream is live; a heartbeat is a ping, not a frame.
      return null
  }
}

/** An event's text frame, made once for every stream it reaches (see event-stream-sse.ts). */
const eventTexts = new WeakMap<LoggedEvent, string>()

function eventText(event: LoggedEvent): string {
  let text = eventTexts.get(event)
  if (text === undefined) eventTexts.set(event, (text = `{"id":${JSON.stringify(event.id)},${event.body.slice(1)}`))
  return text
}

/**
 * A stream's sink on a WebSocket: JSON text frames, a ping for the heartbeat, and the socket's own
 * send buffer as the stream's buffer (what it holds is what the consumer did not read).
 */
export function wsSink(socket: StreamSocket): StreamSink {
  return {
    transport: "websocket",
    send(frame) {
      if (frame.kind === "heartbeat") {
        // An empty ping answers 0 even when sent; a socket that left is learnt from its close.
        socket.ping()
        return true
      }
      const text = wsText(frame)
      return text === null || socket.send(text) !== 0
    },
    pendingBytes: () => socket.getBufferedAmount(),
    end(last) {
      const text = last === null ? null : wsText(last)
      if (text !== null) socket.send(text)
      const code = last === null ? WS_CLOSE.stopping : last.kind === "overflow" ? WS_CLOSE.overflow : WS_CLOSE.error
      socket.close(code, last === null ? "stopping" : last.kind)
    },
  }
}
