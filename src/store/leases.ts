/*
 * Nodes and phone leases (docs/architecture.md § "Nodes and leases"): which wagate node owns
 * which phone when several share one database. A node registers under its WAGATE_NODE_ID with a
 * random instance id (one per process), heartbeats, and holds each of its phones through a lease
 * row that carries a fencing token. The token grows by one at every claim of the phone, whoever
 * claims it, and is never reset (releasing keeps the row), so a write that proves it holds the
 * newest token cannot come from a node that lost the phone meanwhile.
 *
 * A lease is held while its row names the node, carries the token and `expires_at_ms` lies
 * ahead. Once expired it is over, even if no other node took it yet: the owner does not renew
 * it but claims it again, with a new token. The SQLite statements are in sqlite/leases.ts, the
 * PostgreSQL ones in postgres/leases.ts.
 */

/**
 * A node silent for this long is forgotten (its row deleted) when another node registers, so
 * the list of nodes does not keep every container a deployment ever ran; until then
 * `wagate nodes` still shows it, with the age of its last heartbeat.
 */
export const FORGET_NODE_AFTER_MS = 24 * 3_600_000

/**
 * The phones that need a connection, and so a lease (docs/architecture.md § "Nodes and leases"),
 * as a condition on `phones p`, the same text on both stores (stays_offline is 0/1 on SQLite):
 * paired and not logged out, or in the middle of a pairing. A phone's status says paired more
 * exactly than a wa_creds row does: `connecting`, `connected` and `disconnected` are written only
 * for a phone whose stored credentials are paired (domain/connection-lifecycle.ts), while a
 * pairing that never finished leaves a row too (wa-auth.ts, hasCreds). `pairing` is in: its
 * node holds it, and if that node dies a survivor takes it up and marks it unpaired (a restart
 * cut the pairing short), which lets it go. Left out: `unpaired` (never paired, or a phone only
 * test keys use), `logged_out`, and a phone the operator disconnected (stays_offline), which
 * needs no socket until someone connects it: any node does that by claiming it then
 * (claimPhone), so leaving it out costs nothing and frees its node's capacity.
 */
export const NEEDS_CONNECTION = "p.connection_status NOT IN ('unpaired', 'logged_out') AND NOT p.stays_offline"

/** One process of one node: the node id is the operator's name for it, the instance id is random per start. */
export interface NodeIdentity {
  nodeId: string
  instanceId: string
}

/** A node registering at start. */
export interface NodeRegistration extends NodeIdentity {
  maxPhones: number
  nowMs: number
  /** A row of the same node id with another instance and a heartbeat fresher than this refuses the start. */
  leaseMs: number
  /**
   * WAGATE_NODE_URL: where the other nodes forward the requests that need a phone this node
   * holds. Null or absent: they answer 409 naming this node instead.
   */
  url?: string | null
}

/** A phone a node holds, with the token its writes must carry. */
export interface HeldLease {
  phoneId: string
  token: number
  expiresAtMs: number
}

/** What a fenced write proves: the node held the phone's lease with this token (LeaseQueries.assertLease). */
export interface LeaseFence {
  nodeId: string
  token: number
}

/** What a heartbeat found. */
export interface RenewResult {
  /**
   * False when this instance is no longer the registered one of its node id (another process
   * took the id over after this one went silent, or this one released): nothing was renewed.
   */
  registered: boolean
  /** Every lease renewed, by phone id; a phone missing here is lost. */
  held: HeldLease[]
}

/** A node as `wagate nodes` and the dashboard list it. */
export interface NodeSummary extends NodeIdentity {
  startedAtMs: number
  heartbeatAtMs: number
  maxPhones: number
  /** The node released its phones at shutdown (it may still be finishing). */
  stopping: boolean
  /** The URL it advertised for forwarded requests (WAGATE_NODE_URL); null when none. */
  url: string | null
  /** Leases it holds now (not expired). */
  phones: number
  /** When its oldest and newest held lease were acquired; null when it holds none. */
  oldestLeaseAcquiredAtMs: number | null
  newestLeaseAcquiredAtMs: number | null
}

/** The nodes and the phones none of them holds, at one moment (LeaseQueries.leaseCensus). */
export interface LeaseCensus {
  nodes: NodeSummary[]
  unowned: number
}

/** One phone's lease row: every phone has one; token 0 and no owner until its first claim, no owner once released. */
export interface PhoneLeaseRow {
  phoneId: string
  nodeId: string | null
  token: number
  acquiredAtMs: number
  expiresAtMs: number
}

/** The lease queries; every one is safe with many nodes at once. */
export interface LeaseQueries {
  /**
   * Registers this process under its node id. Refused with NodeIdInUseError while another
   * instance of that id heartbeats (fresher than `leaseMs`) and has not released; accepted once
   * that one is stale or stopping. Accepting frees every lease still recorded under the node id
   * (a previous process's), so they are claimed again with new tokens and the old process is fenced.
   * Forgets the nodes silent for FORGET_NODE_AFTER_MS.
   */
  registerNode(registration: NodeRegistration): Promise<void>
  /**
   * Heartbeat and renewal of every unexpired lease of the node, in one statement on PostgreSQL:
   * each lease held now runs until `nowMs + leaseMs`. Returns the leases still held.
   */
  renewLeases(node: NodeIdentity, nowMs: number, leaseMs: number): Promise<RenewResult>
  /**
   * Claims up to `limit` phones that need a connection (NEEDS_CONNECTION) and have no owner or
   * whose lease expired, each with its token bumped; concurrent claimers never get the same phone (PostgreSQL skips the rows another
   * claim has locked). Claims nothing for an instance that is not the registered one.
   */
  claimPhones(node: NodeIdentity, limit: number, nowMs: number, leaseMs: number): Promise<HeldLease[]>
  /**
   * Claims one phone, when nobody holds it (no owner, or its lease expired), with its token
   * bumped; null when another node holds it or this instance is not the registered one. For a
   * phone an operator is pairing on this node before any claim tick took it up.
   */
  claimPhone(node: NodeIdentity, phoneId: string, nowMs: number, leaseMs: number): Promise<HeldLease | null>
  /**
   * Releases the node's lease of one phone when the phone no longer needs a connection
   * (NEEDS_CONNECTION: it was logged out, its pairing was abandoned, the operator disconnected
   * it), so it stops taking the node's capacity at once; true when released. A phone that still
   * needs one, or that the node does not hold, is left as it is.
   */
  releaseUnneededLease(node: NodeIdentity, phoneId: string, nowMs: number): Promise<boolean>
  /** Releases every lease of the node at once (hand-over at shutdown) and marks it stopping; returns how many. */
  releaseNode(node: NodeIdentity, nowMs: number): Promise<number>
  /**
   * The fencing check: throws LeaseLostError unless `nodeId` holds the phone's lease with
   * `token` and it has not expired at `nowMs`. Inside a write on PostgreSQL it also locks the
   * lease row (FOR SHARE) until the write commits, so no claim can take the phone in between.
   */
  assertLease(phoneId: string, nodeId: string, token: number, nowMs: number): Promise<void>
  /**
   * The URL the node registered for forwarded requests (WAGATE_NODE_URL); null when it set none
   * or no node of that id is registered. Forwarding reads it here, so a request can only ever be
   * forwarded to an address a node wrote into the database itself.
   */
  nodeUrl(nodeId: string): Promise<string | null>
  /** Every registered node with the leases it holds at `nowMs`, by node id. */
  listNodes(nowMs: number): Promise<NodeSummary[]>
  /** Phones that need a connection with no owner or an expired lease at `nowMs` (what the nodes still have to claim). */
  countUnownedPhones(nowMs: number): Promise<number>
  /**
   * listNodes and countUnownedPhones read together, from one snapshot: their counts add up to
   * every phone even while other nodes claim. The claim planner needs that sum (two separate
   * reads that straddle another node's claim count its phones twice, and the node claims past
   * its fair share).
   */
  leaseCensus(nowMs: number): Promise<LeaseCensus>
  /** Every phone's lease row, by phone id. */
  listPhoneLeases(): Promise<PhoneLeaseRow[]>
}

/** Another process runs under the same node id: the start is refused. The message is for the operator as is. */
export class NodeIdInUseError extends Error {
  constructor(
    readonly nodeId: string,
    readonly heartbeatAgeMs: number,
    readonly leaseMs: number,
  ) {
    const ageS = Math.max(0, Math.round(heartbeatAgeMs / 1000))
    const waitS = Math.max(1, Math.ceil((leaseMs - heartbeatAgeMs) / 1000))
    super(
      `Another wagate node is running with WAGATE_NODE_ID "${nodeId}" (its last heartbeat was ${ageS} s ago): ` +
        `give each node its own WAGATE_NODE_ID, or, if that node is gone, start this one again in ${waitS} s`,
    )
    this.name = "NodeIdInUseError"
  }
}

/** A write carried a fencing token that no longer holds the phone: another node may own it now. */
export class LeaseLostError extends Error {
  constructor(
    readonly phoneId: string,
    readonly nodeId: string,
    readonly token: number,
  ) {
    super(`Node "${nodeId}" no longer holds the lease of phone ${phoneId} with token ${token}: the write was refused`)
    this.name = "LeaseLostError"
  }
}
