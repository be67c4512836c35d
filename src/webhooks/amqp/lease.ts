import type { Clock } from "../../lib/clock"
import type { Store } from "../../store/store"

/*
 * The publisher's hold on the one cursor row (src/store/amqp-publisher.ts) for publisher.ts. The
 * holder renews the lease once half of it has run. A standby node reads from the row when the
 * holder's lease runs out and claims again then (or after a third of a lease, for a holder that
 * let it go at shutdown): a dead holder is replaced within one lease (docs/operations.md
 * § "RabbitMQ on several nodes"), and a commit's wake-up does not make the standby write to the store meanwhile.
 */

export interface PublisherLease {
  /** The stored cursor while this node holds the lease; null otherwise. */
  readonly cursor: string | null
  /** Until when another node holds the lease, as the row said at the last failed claim (ms). */
  readonly standbyUntilMs: number
  /** Takes or renews the lease when not held or half run; false while another node holds it. */
  hold(): Promise<boolean>
  /** Moves the cursor and renews the lease; false (and the lease forgotten) when it was lost. */
  advance(last: string): Promise<boolean>
  /** Lets the lease go, when held, so another node takes over at once. */
  release(): Promise<void>
}

export function createPublisherLease(deps: { store: Store; clock: Clock; nodeId: string; leaseMs: number }): PublisherLease {
  const { store, clock, nodeId, leaseMs } = deps
  let cursor: string | null = null
  let heldUntilMs = 0
  let standbyUntilMs = 0
  return {
    get cursor() {
      return cursor
    },
    get standbyUntilMs() {
      return standbyUntilMs
    },
    async hold() {
      const nowMs = clock.nowMs()
      if (cursor !== null && heldUntilMs - nowMs > leaseMs / 2) return true
      cursor = await store.write((q) => q.claimAmqpPublisher(nodeId, nowMs, leaseMs))
      heldUntilMs = cursor === null ? 0 : nowMs + leaseMs
      // Holding it, this node must wake on every commit again (publisher.ts gates wake-ups on this).
      standbyUntilMs = cursor === null ? ((await store.amqpPublisherRow())?.leaseExpiresAtMs ?? 0) : 0
      return cursor !== null
    },
    async advance(last) {
      const nowMs = clock.nowMs()
      const kept = await store.write((q) => q.advanceAmqpPublisher(nodeId, last, nowMs, leaseMs))
      cursor = kept ? last : null
      if (kept) heldUntilMs = nowMs + leaseMs
      return kept
    },
    async release() {
      if (cursor !== null) await store.write((q) => q.releaseAmqpPublisher(nodeId)).catch(() => {})
      cursor = null
    },
  }
}
