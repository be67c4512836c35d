import { errors } from "../lib/errors"
import type { EventWake } from "../webhooks/event-wake"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { createEventStream } from "./event-stream"

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

export interface EventStreams {
  /**
   * Opens a stream for the key: records the consumer, fixes where it starts (after the resume id,
   * or now), and returns the bytes to send. Refuses a key that has its streams open already.
   */
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
  openedAtMs: number
}

/**
 * Server-Sent Events over the event log (docs/webhooks.md § "Streams"): the open streams per key,
 * the consumer rows that keep an account's events in the log, and where each stream starts. The
 * bytes of one stream come from src/domain/event-stream.ts.
 */
export function createEventStreams(deps: { ctx: DomainContext; wake: EventWake; bufferBytes?: number; perKey?: number }): EventStreams {
  const { ctx, wake } = deps
  const bufferBytes = deps.bufferBytes ?? STREAM_BUFFER_BYTES
  const perKey = deps.perKey ?? STREAMS_PER_KEY
  const open = new Map<string, number>()
  const closers = new Set<(final?: string) => void>()
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

  return {
    async open(principal, request) {
      const count = open.get(principal.keyId) ?? 0
      if (count >= perKey) throw errors.tooManyStreams(perKey)
      open.set(principal.keyId, count + 1)
      try {
        await touchConsumer(principal)
        const start = await startPosition(principal, request.after)
        let close: (final?: string) => void = () => {}
        const listed: OpenStream = { keyId: principal.keyId, accountId: principal.accountId, env: principal.env, openedAtMs: ctx.clock.nowMs() }
        return createEventStream({
          ctx,
          wake,
          bufferBytes,
          principal,
          request,
          start,
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
      } catch (err) {
        release(principal.keyId)
        throw err
      }
    },
    openCount: (keyId) => open.get(keyId) ?? 0,
    closeAll() {
      for (const close of [...closers]) close("")
    },
    openStreams: () => [...listing],
  }
}
