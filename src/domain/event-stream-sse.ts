import type { StreamFrame, StreamSink } from "./event-stream"

const encoder = new TextEncoder()

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
        controller.enqueue(encoder.encode(sseText(frame)))
        return true
      } catch {
        return false
      }
    },
    pendingBytes: () => bufferBytes - (controller.desiredSize ?? 0),
    end(last) {
      try {
        if (last !== null) controller.enqueue(encoder.encode(sseText(last)))
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
