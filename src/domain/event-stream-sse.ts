import type { StreamFrame, StreamSink } from "./event-stream"
import type { LoggedEvent } from "../store/event-streams"

const encoder = new TextEncoder()

/**
 * An event's frame, encoded once for every stream it reaches: the streams at the head of an
 * account's log share one page of event objects (src/domain/event-tail.ts), so with 1,000 streams
 * one commit is framed and encoded once, not 1,000 times. Weak, so it lives as long as the page.
 */
const eventBytes = new WeakMap<LoggedEvent, Uint8Array>()

function frameBytes(frame: StreamFrame): Uint8Array {
  if (frame.kind !== "event") return encoder.encode(sseText(frame))
  let bytes = eventBytes.get(frame.event)
  if (!bytes) eventBytes.set(frame.event, (bytes = encoder.encode(sseText(frame))))
  return bytes
}

/** One frame as Server-Sent Events text (docs/webhooks.md § "Streams"): the data line is the webhook envelope, byte for byte. */
function sseText(frame: StreamFrame): string {
  switch (frame.kind) {
    case "event":
      return `id: ${frame.event.id}\nevent: ${frame.event.type}\ndata: ${frame.event.body}\n\n`
    case "connected":
      return ": connected\n\n"
    case "heartbeat":
      return ": keep-alive\n\n"
    case "reset":
      return `event: reset\ndata: ${JSON.stringify({ after: frame.after })}\n\n`
    case "overflow":
      return `event: overflow\ndata: ${JSON.stringify({ lastEventId: frame.lastEventId })}\n\n`
    case "error":
      return "event: error\ndata: {}\n\n"
  }
}

/**
 * A stream's Server-Sent Events body. `attach` starts the stream on the sink (as the body is made)
 * and returns what to call when the client leaves. The body's queue is the stream's buffer: what
 * it holds past `bufferBytes` is what the consumer did not read.
 */
export function sseBody(bufferBytes: number, attach: (sink: StreamSink) => () => void): ReadableStream<Uint8Array> {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let left = () => {}
  const sink: StreamSink = {
    transport: "sse",
    send(frame) {
      try {
        controller.enqueue(frameBytes(frame))
        return true
      } catch {
        return false
      }
    },
    pendingBytes: () => bufferBytes - (controller.desiredSize ?? 0),
    end(last) {
      try {
        if (last !== null) controller.enqueue(frameBytes(last))
        controller.close()
      } catch {
        // The client left as the stream was ending.
      }
    },
  }
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c
        left = attach(sink)
      },
      cancel: () => left(),
    },
    new ByteLengthQueuingStrategy({ highWaterMark: bufferBytes }),
  )
}
