import type { Clock } from "../lib/clock"
import type { LeaseQueries, NodeIdentity } from "../store/leases"

/* The lease keeper's options and handle (lease-keeper.ts), apart so the keeper itself stays short. */

/** What the keeper needs of the store. */
export type LeaseKeeperStore = Pick<LeaseQueries, "registerNode" | "renewLeases" | "claimPhones" | "claimPhone" | "releaseUnneededLease" | "releaseNode" | "leaseCensus">

export interface LeaseKeeperOptions {
  store: LeaseKeeperStore
  clock: Clock
  /** WAGATE_NODE_ID and this process's random instance id. */
  node: NodeIdentity
  /** WAGATE_NODE_MAX_PHONES. */
  maxPhones: number
  /** WAGATE_NODE_URL, registered for the other nodes to forward requests to; null when unset. */
  url?: string | null
  leaseMs?: number
  renewEveryMs?: number
  firstClaimDelayMs?: number
  /** Phones this node now owns. Return quickly: the next renewal waits for it. */
  onGained(phoneIds: string[]): void | Promise<void>
  /** Phones this node no longer owns: stop using them (close their sockets) before returning. */
  onLost(phoneIds: string[]): void | Promise<void>
  /**
   * A failed renewal, census, claim or callback; the keeper carries on. A NodeIdInUseError here
   * means another process took this node id over while this one was silent (paused past a
   * lease): this one holds nothing and should exit.
   */
  onError(err: unknown): void
}

export interface LeaseKeeper {
  /** Registers the node (throws NodeIdInUseError), then runs the first tick and keeps ticking. */
  start(): Promise<void>
  /** Stops ticking, reports every held phone lost, then releases them all. */
  stop(): Promise<void>
  /**
   * Claims one phone nobody holds, now, within the node's maximum (an operator pairs it on this
   * node before a tick took it up); true when this node holds it after. Runs between ticks, so
   * a renewal never mistakes it for lost. Reports nothing to onGained: the caller takes it up.
   */
  claimOne(phoneId: string): Promise<boolean>
  /**
   * Lets a held phone go when it no longer needs a connection (logged out, pairing abandoned,
   * disconnected by the operator: LeaseQueries.releaseUnneededLease), so it frees this node's
   * capacity now rather than never; true when released. Runs between ticks, like claimOne, and
   * reports nothing to onLost: the phone's socket is closed already.
   */
  releaseIfUnneeded(phoneId: string): Promise<boolean>
  /** The fencing token of a phone this node holds, or null. */
  tokenOf(phoneId: string): number | null
  /** The phones this node holds, sorted. */
  heldPhones(): string[]
  /** Resolves once the tick or the claim between ticks under way (if any) has finished. */
  idle(): Promise<void>
}
