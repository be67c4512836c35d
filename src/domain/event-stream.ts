import { eventMatches } from "../lib/event-filter"
import type { TimerHandle } from "../lib/clock"
import type { EventTail } from "./event-tail"
import type { LoggedEvent } from "../store/event-streams"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { STREAM_CONSUMER_REFRESH_MS, STREAM_HEARTBEAT_MS, type StreamRequest, type StreamStart } from "./event-streams"

/** Events read from the log per query. */
const PAGE = 200

/** What a stream says, whatever carries it: Server-Sent Events (event-stream-sse.ts) or WebSocket frames (event-stream-ws.ts). */
export type StreamFrame =
  | { kind: "event"; event: LoggedEvent }
  /** The stream is positioned and live (no resume id, or a known one). */
  | { kind: "connected" }
  /** The client's resume id is not in the log: the stream goes on from now. */
  | { kind: "reset"; after: string | null }
  | { kind: "heartbeat" }
  /** The consumer left too much unread: it resumes from `lastEventId`. */
  | { kind: "overflow"; lastEventId: string | null }
  /** The event log could not be read. */
  | { kind: "error" }

/** A transport's side of one stream. */
/** How a stream reaches its client. */
export type StreamTransport = "sse" | "websocket"

export interface StreamSink {
  /** The transport's name, for the streams the dashboard lists. */
  transport: StreamTransport
  /** Sends one frame; false when the client has left. */
  send(frame: StreamFrame): boolean
  /** Bytes sent that the client has not taken yet. */
  pendingBytes(): number
  /** Ends the transport, after a last frame when one is given (null: the server is stopping). */
  end(last: StreamFrame | null): void
}

/** Ends a stream: with no argument the client left (the transport is gone already). */
export type StreamClose = (last?: StreamFrame | null) => void

/**
 * One stream, whatever its transport (docs/webhooks.md § "Streams"): it keeps its own position in
 * the log and reads what came after it when the outbox rings (after a commit), on a rescan timer,
 * and once at the start (the replay), through the reads it shares with the account's other
 * streams (src/domain/event-tail.ts). It never holds events the log does not hold: a consumer that
 * stops reading lets the sink's unsent bytes grow to `bufferBytes`, and then the stream ends with
 * an overflow frame for the client to resume from its last id. Returns the close the transport
 * calls when its client leaves.
 */
export function createEventStream(deps: {
  ctx: DomainContext
  /** The log reads and wake-ups this node's streams share (src/domain/event-tail.ts). */
  tail: EventTail
  bufferBytes: number
  principal: Principal
  request: StreamRequest
  start: StreamStart
  sink: StreamSink
  /** Refreshes the consumer row (hourly while the stream is open). */
  refresh: () => void
  /** Receives the stream's close, for the registry to end it when the server stops. */
  register: (close: StreamClose) => void
  onClosed: () => void
}): () => void {
  const { ctx, tail, principal, request, start, sink } = deps
  const { accountId, env } = principal
  let position = start.position
  let lastId = request.after
  let closed = false
  let reading = false
  let again = false
  const timers: TimerHandle[] = []

  /** A stream the client already left ends here instead of throwing in a timer. */
  function send(frame: StreamFrame): void {
    if (!closed && !sink.send(frame)) close()
  }

  function close(last?: StreamFrame | null): void {
    if (closed) return
    closed = true
    for (const t of timers) t.cancel()
    unlisten()
    deps.onClosed()
    if (last !== undefined) sink.end(last)
  }

  /** Reads one page into the stream; true when there may be more. */
  async function readOnce(): Promise<boolean> {
    // Checked before reading more, not after a page: the consumer had the time of a query to
    // take what was sent, so what is still queued is what it did not read.
    if (sink.pendingBytes() > deps.bufferBytes) {
      close({ kind: "overflow", lastEventId: lastId })
      return false
    }
    const page = await tail.read(accountId, env, position, PAGE)
    if (closed) return false
    for (const event of page) {
      position = event.position
      if (request.types !== null && !eventMatches(request.types, event.type)) continue
      send({ kind: "event", event })
      lastId = event.id
    }
    return page.length === PAGE && !closed
  }

  async function pump(): Promise<void> {
    if (reading) {
      again = true
      return
    }
    reading = true
    try {
      do {
        again = false
        while (await readOnce());
      } while (again && !closed)
    } catch (err) {
      ctx.logger.warn("event stream stopped: reading the event log failed", { err, accountId })
      close({ kind: "error" })
    } finally {
      reading = false
    }
  }

  /** Runs `fn` every `ms` on the injected clock until the stream closes. */
  function every(ms: number, fn: () => void): void {
    const slot = timers.length
    const tick = () => {
      if (closed) return
      fn()
      timers[slot] = ctx.clock.setTimer(ms, tick)
    }
    timers[slot] = ctx.clock.setTimer(ms, tick)
  }

  // Rung after commits and on the rescan timer, which the tail runs for all streams of the account.
  const unlisten = tail.listen(accountId, env, () => void pump())
  deps.register(close)
  send(start.reset ? { kind: "reset", after: request.after } : { kind: "connected" })
  if (!closed) {
    every(STREAM_HEARTBEAT_MS, () => send({ kind: "heartbeat" }))
    every(STREAM_CONSUMER_REFRESH_MS, deps.refresh)
    void pump()
  }
  return () => close()
}
