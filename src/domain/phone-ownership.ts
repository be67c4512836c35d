import type { Clock } from "../lib/clock"
import type { Logger } from "../lib/logger"
import { NodeIdInUseError, type LeaseFence, type NodeIdentity } from "../store/leases"
import type { Store } from "../store/store"
import { createLeaseKeeper, type LeaseKeeper } from "./lease-keeper"

/*
 * Which phones this process may connect (docs/architecture.md § "Nodes and leases"). On a
 * database one process has (SQLite) that process owns every phone, always. On a database several
 * nodes share (PostgreSQL) a node owns the phones it holds a lease on, through the lease keeper:
 * it connects a phone when it gains it, closes it when it loses it, and every write of the
 * phone's WhatsApp credentials and keys carries the lease's token (the fence), so a node that
 * lost a phone without knowing yet (paused past its lease) cannot overwrite the new owner's.
 */

/** What ownership tells the sessions. */
export interface OwnershipHandlers {
  /** Phones this node now owns: connect the paired ones. */
  gained(phoneIds: string[]): Promise<void>
  /** Phones this node no longer owns: close their sockets, without writing anything about them. */
  lost(phoneIds: string[]): Promise<void>
}

export interface PhoneOwnership {
  /** Whether other processes may own some of the phones (several nodes on one database). */
  readonly shared: boolean
  /** Starts owning: gained() runs for the phones owned now, and later for each one gained. */
  start(handlers: OwnershipHandlers): Promise<void>
  /** Hands every phone over (the sessions are closed first: services.stop()). */
  stop(): Promise<void>
  owns(phoneId: string): boolean
  /** Takes a phone nobody holds now (see LeaseKeeper.claimOne); true when this process owns it after. */
  claim(phoneId: string): Promise<boolean>
  /**
   * The phone may no longer need a connection (logged out, its pairing abandoned, disconnected
   * by the operator): its lease, if this node holds one, is let go at once, so it stops taking
   * this node's capacity (docs/architecture.md § "Nodes and leases"). Never throws.
   */
  letGoIfUnneeded(phoneId: string): Promise<void>
  /** What a write of the phone's credentials or keys must prove; null where nothing is shared. */
  fenceOf(phoneId: string): LeaseFence | null
  /**
   * A fenced write of the phone was refused: this node lost it. Its socket closes now, before
   * the next renewal would tell; the keeper drops it then.
   */
  refused(phoneId: string): void
}

/** Tokens start at 1 with a phone's first claim: no lease ever carries this one. */
const NO_LEASE_TOKEN = -1

/** The one process of a SQLite data directory owns every phone; nothing is fenced. */
export function soleOwnership(store: Pick<Store, "listAllPhones">): PhoneOwnership {
  return {
    shared: false,
    async start(handlers) {
      await handlers.gained((await store.listAllPhones()).map((p) => p.id))
    },
    async stop() {},
    owns: () => true,
    claim: async () => true,
    letGoIfUnneeded: async () => {},
    fenceOf: () => null,
    refused: () => {},
  }
}

export interface LeasedOwnershipOptions {
  store: Store
  clock: Clock
  logger: Logger
  node: NodeIdentity
  maxPhones: number
  /** WAGATE_NODE_URL (docs/operations.md § "Running several nodes"); null when unset. */
  url?: string | null
  /** Called when another process took this node id over (this one was paused past a lease): it must exit. */
  onNodeIdTaken(err: NodeIdInUseError): void
  leaseMs?: number
  renewEveryMs?: number
  firstClaimDelayMs?: number
}

/** Ownership through phone leases, for nodes sharing one database. */
export function leasedOwnership(options: LeasedOwnershipOptions): PhoneOwnership {
  const { logger, node } = options
  let keeper: LeaseKeeper | null = null
  let handlers: OwnershipHandlers | null = null
  /** Phones whose fenced write was refused: not owned any more, whatever the keeper still holds. */
  const refused = new Set<string>()

  return {
    shared: true,
    async start(given) {
      handlers = given
      keeper = createLeaseKeeper({
        store: options.store,
        clock: options.clock,
        node,
        maxPhones: options.maxPhones,
        url: options.url,
        leaseMs: options.leaseMs,
        renewEveryMs: options.renewEveryMs,
        firstClaimDelayMs: options.firstClaimDelayMs,
        onGained: async (phoneIds) => {
          for (const phoneId of phoneIds) refused.delete(phoneId)
          logger.info("phones gained", { node: node.nodeId, phones: phoneIds.length })
          await given.gained(phoneIds)
        },
        onLost: async (phoneIds) => {
          logger.info("phones lost", { node: node.nodeId, phones: phoneIds.length })
          await given.lost(phoneIds.filter((id) => !refused.has(id)))
        },
        onError: (err) => {
          if (err instanceof NodeIdInUseError) return options.onNodeIdTaken(err)
          logger.warn("renewing or claiming phone leases failed; retrying at the next renewal", { node: node.nodeId, err })
        },
      })
      await keeper.start()
    },
    async stop() {
      await keeper?.stop()
    },
    owns: (phoneId) => !refused.has(phoneId) && keeper?.tokenOf(phoneId) != null,
    async claim(phoneId) {
      if (!keeper) return false
      refused.delete(phoneId)
      return keeper.claimOne(phoneId)
    },
    async letGoIfUnneeded(phoneId) {
      const released = await keeper?.releaseIfUnneeded(phoneId).catch((err) => {
        logger.warn("letting go of the lease of a phone that needs no connection failed; the node keeps it until it stops", { node: node.nodeId, phoneId, err })
        return false
      })
      if (released) logger.info("phone let go: it needs no connection", { node: node.nodeId, phoneId })
    },
    // A phone not held gets a token no lease carries, so its writes are refused rather than unfenced.
    fenceOf: (phoneId) => ({ nodeId: node.nodeId, token: keeper?.tokenOf(phoneId) ?? NO_LEASE_TOKEN }),
    refused(phoneId) {
      if (refused.has(phoneId) || !handlers) return
      refused.add(phoneId)
      logger.warn("a write for a phone (its WhatsApp keys or its status) was refused: another node holds the phone now; closing its socket", { node: node.nodeId, phoneId })
      void handlers.lost([phoneId]).catch((err) => logger.error("closing the socket of a lost phone failed", { phoneId, err }))
    },
  }
}
