import { eventMatches } from "../lib/event-filter"
import type { TimerHandle } from "../lib/clock"
import type { EventTail } from "./event-tail"
import type { LoggedEvent } from "../store/event-streams"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { STREAM_CONSUMER_REFRESH_MS, STREAM_HEARTBEAT_MS, type StreamRequest, type StreamStart } from "./event-streams"

/** Events read from the log per query. */
const PAGE = 200

const encoder = new TextEncoder()
const frame = (e: LoggedEvent) => `id: ${e.id}\nevent: ${e.type}\ndata: ${e.body}\n\n`

/**
 * One stream's bytes (docs/webhooks.md § "Streams"): it keeps its own position in the log and
 * reads what came after it when the outbox rings (after a commit), on a rescan timer, and once at
 * the start (the replay), through the reads it shares with the account's other streams. It never holds events the log does not hold: a consumer that stops
 * reading lets the unsent bytes grow to `bufferBytes`, and then the stream ends with
 * `event: overflow` for the client to resume from its last id.
 */
export function createEventStream(deps: {
  ctx: DomainContext
  /** The log reads and wake-ups this node's streams share (src/domain/event-tail.ts). */
  tail: EventTail
  bufferBytes: number
  principal: Principal
  request: StreamRequest
  start: StreamStart
  /** Refreshes the consumer row (hourly while the stream is open). */
  refresh: () => void
  /** Receives the stream's close, which ends it with a last frame (or none for ""). */
  register: (close: (final?: string) => void) => void
  onClosed: () => void
}): ReadableStream<Uint8Array> {
  const { ctx, tail, principal, request, start } = deps
  const { accountId, env } = principal
  let position = start.position
  let lastId = request.after
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let closed = false
  let reading = false
  let again = false
  const timers: TimerHandle[] = []
  /** Queues bytes for the client; a stream the client already left ends here instead of throwing in a timer. */
  function send(text: string): void {
    try {
      controller.enqueue(encoder.encode(text))
    } catch {
      close()
    }
  }

  function close(final?: string): void {
    if (closed) return
    closed = true
    for (const t of timers) t.cancel()
    unlisten()
    deps.onClosed()
    if (final === undefined) return
    try {
      if (final !== "") controller.enqueue(encoder.encode(final))
      controller.close()
    } catch {
      // The client left as the stream was ending.
    }
  }

  /** Reads one page into the stream; true when there may be more. */
  async function readOnce(): Promise<boolean> {
    // Checked before reading more, not after a page: the consumer had the time of a query to
    // take what was sent, so what is still queued is what it did not read.
    if ((controller.desiredSize ?? 0) < 0) {
      close(`event: overflow\ndata: ${JSON.stringify({ lastEventId: lastId })}\n\n`)
      return false
    }
    const page = await tail.read(accountId, env, position, PAGE)
    if (closed) return false
    for (const event of page) {
      position = event.position
      if (request.types !== null && !eventMatches(request.types, event.type)) continue
      send(frame(event))
      lastId = event.id
    }
    return page.length === PAGE
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
      close("event: error\ndata: {}\n\n")
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
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c
        send(start.reset ? `event: reset\ndata: ${JSON.stringify({ after: request.after })}\n\n` : ": connected\n\n")
        every(STREAM_HEARTBEAT_MS, () => send(": keep-alive\n\n"))
        every(STREAM_CONSUMER_REFRESH_MS, deps.refresh)
        void pump()
      },
      cancel: () => close(),
    },
    new ByteLengthQueuingStrategy({ highWaterMark: deps.bufferBytes }),
  )
}
