import { errors } from "../lib/errors"
import type { EventWake } from "../webhooks/event-wake"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { createEventStream, type StreamClose, type StreamSink, type StreamTransport } from "./event-stream"
import { sseBody } from "./event-stream-sse"
import { createEventTail } from "./event-tail"

/** Open streams one API key may hold at once (docs/webhooks.md § "Streams"); the next is refused with 429. */
export const STREAMS_PER_KEY = 5
/** A comment line this often keeps proxies from closing a quiet stream. */
export const STREAM_HEARTBEAT_MS = 15_000
/** The log is read again this often even without a wake-up, for a wake-up lost or not sent. */
export const STREAM_RESCAN_MS = 2_000
/** A stream's consumer row is refreshed this often while it is open, so its events stay kept. */
export const STREAM_CONSUMER_REFRESH_MS = 3_600_000
/** Unsent bytes a stream may hold for a consumer that does not read; past them it overflows. */
export const STREAM_BUFFER_BYTES = 1_048_576

/** What a client asked of a stream: the event filter (null: every event) and where to resume. */
export interface StreamRequest {
  types: readonly string[] | null
  /** The last event id the client saw (`Last-Event-ID` or `?after=`), or null to start now. */
  after: string | null
}

/** Where a stream starts in the log, and whether the client's resume id was unknown (a reset). */
export interface StreamStart {
  position: string
  reset: boolean
}

/** A stream admitted and positioned, waiting for its transport (a WebSocket is admitted before its upgrade). */
export interface AdmittedStream {
  /** Starts the stream on the transport's sink; returns what to call when the client leaves. */
  attach(sink: StreamSink): () => void
  /** Gives the place back when no transport came (the upgrade failed). */
  abandon(): void
}

export interface EventStreams {
  /**
   * Admits a stream for the key, whatever its transport: records the consumer and fixes where it
   * starts (after the resume id, or now). Refuses a key that has its streams open already, SSE
   * and WebSocket counted together.
   */
  admit(principal: Principal, request: StreamRequest): Promise<AdmittedStream>
  /** Admits a Server-Sent Events stream and returns the bytes to send. */
  open(principal: Principal, request: StreamRequest): Promise<ReadableStream<Uint8Array>>
  /** Open streams per key id (the dashboard and tests read it). */
  openCount(keyId: string): number
  /** Ends every open stream (the server is stopping). */
  closeAll(): void
  /** This node's open streams, oldest first: whose key and since when (the dashboard lists them). */
  openStreams(): OpenStream[]
}

/** One open stream of this node. */
export interface OpenStream {
  keyId: string
  accountId: string
  env: string
  transport: StreamTransport
  openedAtMs: number
}

/**
 * Streams over the event log (docs/webhooks.md § "Streams"), Server-Sent Events and WebSocket
 * alike: the open streams per key, the consumer rows that keep an account's events in the log, and
 * where each stream starts. One stream runs in src/domain/event-stream.ts, its transport's framing
 * in event-stream-sse.ts or event-stream-ws.ts.
 */
export function createEventStreams(deps: { ctx: DomainContext; wake: EventWake; bufferBytes?: number; perKey?: number }): EventStreams {
  const { ctx, wake } = deps
  const bufferBytes = deps.bufferBytes ?? STREAM_BUFFER_BYTES
  const perKey = deps.perKey ?? STREAMS_PER_KEY
  // One log read per account and wake-up, whatever the number of streams at its head.
  const tail = createEventTail({ store: ctx.store, wake, clock: ctx.clock, rescanMs: STREAM_RESCAN_MS })
  const open = new Map<string, number>()
  const closers = new Set<StreamClose>()
  const listing = new Set<OpenStream>()

  function release(keyId: string): void {
    const left = (open.get(keyId) ?? 1) - 1
    if (left > 0) open.set(keyId, left)
    else open.delete(keyId)
  }

  async function touchConsumer(principal: Principal): Promise<void> {
    const { accountId, env } = principal
    const nowMs = ctx.clock.nowMs()
    // The first stream moves the change version, so the outbox starts keeping this account's
    // events at once; a refresh changes nothing any cache holds.
    const known = await ctx.store.hasEventConsumer(accountId, env)
    await ctx.store.write(async (q) => q.touchEventConsumer(accountId, env, nowMs), known ? {} : { changed: ["event_consumers"] })
  }

  /** Where the stream starts, and whether the client's id was unknown (a reset). */
  async function startPosition(principal: Principal, after: string | null): Promise<StreamStart> {
    const { accountId, env } = principal
    const position = after === null ? null : await ctx.store.eventPosition(accountId, env, after)
    if (position !== null) return { position, reset: false }
    return { position: await ctx.store.eventLogHead(accountId, env), reset: after !== null }
  }

  /** The admitted stream's start, or its place given back; each happens at most once. */
  function admitted(principal: Principal, request: StreamRequest, start: StreamStart): AdmittedStream {
    let settled = false
    return {
      attach(sink) {
        if (settled) throw new Error("an admitted stream starts once")
        settled = true
        let close: StreamClose = () => {}
        const listed: OpenStream = { keyId: principal.keyId, accountId: principal.accountId, env: principal.env, transport: sink.transport, openedAtMs: ctx.clock.nowMs() }
        return createEventStream({
          ctx,
          tail,
          bufferBytes,
          principal,
          request,
          start,
          sink,
          refresh: () => void touchConsumer(principal).catch((err) => ctx.logger.warn("refreshing an event stream's consumer row failed", { err })),
          register: (fn) => {
            closers.add((close = fn))
            listing.add(listed)
          },
          onClosed: () => {
            closers.delete(close)
            listing.delete(listed)
            release(principal.keyId)
          },
        })
      },
      abandon() {
        if (settled) return
        settled = true
        release(principal.keyId)
      },
    }
  }

  async function admit(principal: Principal, request: StreamRequest): Promise<AdmittedStream> {
    const count = open.get(principal.keyId) ?? 0
    if (count >= perKey) throw errors.tooManyStreams(perKey)
    open.set(principal.keyId, count + 1)
    try {
      await touchConsumer(principal)
      return admitted(principal, request, await startPosition(principal, request.after))
    } catch (err) {
      release(principal.keyId)
      throw err
    }
  }

  return {
    admit,
    async open(principal, request) {
      const stream = await admit(principal, request)
      return sseBody(bufferBytes, stream.attach)
    },
    openCount: (keyId) => open.get(keyId) ?? 0,
    closeAll() {
      for (const close of [...closers]) close(null)
    },
    openStreams: () => [...listing],
  }
}
