import type { Database } from "bun:sqlite"
import { FORGET_NODE_AFTER_MS, NEEDS_CONNECTION, LeaseLostError, NodeIdInUseError, type HeldLease, type NodeIdentity, type NodeRegistration, type NodeSummary, type PhoneLeaseRow, type RenewResult } from "../leases"

/*
 * The lease statements on SQLite (tables of migration 16; the rules are in leases.ts). One
 * process owns a SQLite file, so each function runs its statements back to back on the one
 * connection without another claimer in between; they still check the instance and the token as
 * the PostgreSQL ones do, so both stores behave alike.
 */

const REGISTER = `INSERT INTO nodes (node_id, instance_id, started_at_ms, heartbeat_at_ms, max_phones, stopping, url)
  VALUES ($nodeId, $instanceId, $nowMs, $nowMs, $maxPhones, 0, $url)
  ON CONFLICT (node_id) DO UPDATE SET instance_id = excluded.instance_id, started_at_ms = excluded.started_at_ms,
    heartbeat_at_ms = excluded.heartbeat_at_ms, max_phones = excluded.max_phones, stopping = 0, url = excluded.url
  WHERE nodes.instance_id = excluded.instance_id OR nodes.stopping = 1 OR nodes.heartbeat_at_ms <= $staleBeforeMs
  RETURNING node_id`
const HOLDER = "SELECT heartbeat_at_ms AS heartbeatAtMs FROM nodes WHERE node_id = ?"
const FORGET_SILENT = "DELETE FROM nodes WHERE heartbeat_at_ms <= ?"
const FREE_NODE_LEASES = "UPDATE phone_leases SET node_id = NULL, expires_at_ms = $nowMs WHERE node_id = $nodeId"

/** Registers the node, or throws NodeIdInUseError (leases.ts). */
export function registerNode(db: Database, r: NodeRegistration): void {
  const holder = db.query<{ heartbeatAtMs: number }, [string]>(HOLDER).get(r.nodeId)
  const params = { nodeId: r.nodeId, instanceId: r.instanceId, nowMs: r.nowMs, maxPhones: r.maxPhones, staleBeforeMs: r.nowMs - r.leaseMs, url: r.url ?? null }
  const accepted = db.query(REGISTER).get(params)
  if (!accepted) throw new NodeIdInUseError(r.nodeId, r.nowMs - (holder?.heartbeatAtMs ?? r.nowMs), r.leaseMs)
  db.query(FREE_NODE_LEASES).run({ nodeId: r.nodeId, nowMs: r.nowMs })
  db.query(FORGET_SILENT).run(r.nowMs - FORGET_NODE_AFTER_MS)
}

const HEARTBEAT = "UPDATE nodes SET heartbeat_at_ms = $nowMs WHERE node_id = $nodeId AND instance_id = $instanceId AND stopping = 0 RETURNING node_id"
const RENEW = `UPDATE phone_leases SET expires_at_ms = $expiresAtMs WHERE node_id = $nodeId AND expires_at_ms > $nowMs
  RETURNING phone_id AS phoneId, token, expires_at_ms AS expiresAtMs`

/** Heartbeat and renewal (leases.ts). */
export function renewLeases(db: Database, node: NodeIdentity, nowMs: number, leaseMs: number): RenewResult {
  if (!db.query(HEARTBEAT).get({ nodeId: node.nodeId, instanceId: node.instanceId, nowMs })) return { registered: false, held: [] }
  const held = db.query<HeldLease, Record<string, string | number>>(RENEW).all({ nodeId: node.nodeId, nowMs, expiresAtMs: nowMs + leaseMs })
  return { registered: true, held: held.sort(byPhoneId) }
}

const byPhoneId = (a: { phoneId: string }, b: { phoneId: string }) => (a.phoneId < b.phoneId ? -1 : a.phoneId > b.phoneId ? 1 : 0)

const REGISTERED = "SELECT 1 AS yes FROM nodes WHERE node_id = $nodeId AND instance_id = $instanceId AND stopping = 0"
// The SELECT's WHERE lets SQLite tell the upsert's ON CONFLICT from a join constraint.
const CLAIM = `INSERT INTO phone_leases (phone_id, node_id, token, acquired_at_ms, expires_at_ms)
  SELECT p.id, $nodeId, 1, $nowMs, $expiresAtMs FROM phones p LEFT JOIN phone_leases l ON l.phone_id = p.id
  WHERE (l.phone_id IS NULL OR l.node_id IS NULL OR l.expires_at_ms <= $nowMs) AND ${NEEDS_CONNECTION}
  ORDER BY p.id LIMIT $limit
  ON CONFLICT (phone_id) DO UPDATE SET node_id = excluded.node_id, token = phone_leases.token + 1,
    acquired_at_ms = excluded.acquired_at_ms, expires_at_ms = excluded.expires_at_ms
  WHERE phone_leases.node_id IS NULL OR phone_leases.expires_at_ms <= $nowMs
  RETURNING phone_id AS phoneId, token, expires_at_ms AS expiresAtMs`

/** Claims unowned or expired phones (leases.ts). */
export function claimPhones(db: Database, node: NodeIdentity, limit: number, nowMs: number, leaseMs: number): HeldLease[] {
  if (limit <= 0 || !db.query(REGISTERED).get({ nodeId: node.nodeId, instanceId: node.instanceId })) return []
  const rows = db.query<HeldLease, Record<string, string | number>>(CLAIM).all({ nodeId: node.nodeId, nowMs, expiresAtMs: nowMs + leaseMs, limit })
  return rows.sort(byPhoneId)
}

const CLAIM_ONE = `INSERT INTO phone_leases (phone_id, node_id, token, acquired_at_ms, expires_at_ms)
  SELECT p.id, $nodeId, 1, $nowMs, $expiresAtMs FROM phones p WHERE p.id = $phoneId
  ON CONFLICT (phone_id) DO UPDATE SET node_id = excluded.node_id, token = phone_leases.token + 1,
    acquired_at_ms = excluded.acquired_at_ms, expires_at_ms = excluded.expires_at_ms
  WHERE phone_leases.node_id IS NULL OR phone_leases.expires_at_ms <= $nowMs
  RETURNING phone_id AS phoneId, token, expires_at_ms AS expiresAtMs`

/** Claims one phone when nobody holds it (leases.ts). */
export function claimPhone(db: Database, node: NodeIdentity, phoneId: string, nowMs: number, leaseMs: number): HeldLease | null {
  if (!db.query(REGISTERED).get({ nodeId: node.nodeId, instanceId: node.instanceId })) return null
  return db.query<HeldLease, Record<string, string | number>>(CLAIM_ONE).get({ nodeId: node.nodeId, phoneId, nowMs, expiresAtMs: nowMs + leaseMs })
}

const RELEASE_UNNEEDED = `UPDATE phone_leases SET node_id = NULL, expires_at_ms = $nowMs
  WHERE phone_id = $phoneId AND node_id = $nodeId AND expires_at_ms > $nowMs
    AND NOT EXISTS (SELECT 1 FROM phones p WHERE p.id = $phoneId AND ${NEEDS_CONNECTION})
  RETURNING phone_id`

/** Lets one phone go when it no longer needs a connection (leases.ts). */
export function releaseUnneededLease(db: Database, node: NodeIdentity, phoneId: string, nowMs: number): boolean {
  return db.query(RELEASE_UNNEEDED).get({ nodeId: node.nodeId, phoneId, nowMs }) !== null
}

const MARK_STOPPING = "UPDATE nodes SET stopping = 1, heartbeat_at_ms = $nowMs WHERE node_id = $nodeId AND instance_id = $instanceId RETURNING node_id"

/** Releases the node's leases and marks it stopping (leases.ts). */
export function releaseNode(db: Database, node: NodeIdentity, nowMs: number): number {
  if (!db.query(MARK_STOPPING).get({ nodeId: node.nodeId, instanceId: node.instanceId, nowMs })) return 0
  return db.query(FREE_NODE_LEASES).run({ nodeId: node.nodeId, nowMs }).changes
}

const HOLDS = "SELECT 1 AS yes FROM phone_leases WHERE phone_id = $phoneId AND node_id = $nodeId AND token = $token AND expires_at_ms > $nowMs"

/** The fencing check (leases.ts). SQLite has one writer, so no claim can slip in before the write commits. */
export function assertLease(db: Database, phoneId: string, nodeId: string, token: number, nowMs: number): void {
  if (!db.query(HOLDS).get({ phoneId, nodeId, token, nowMs })) throw new LeaseLostError(phoneId, nodeId, token)
}

const LIST_NODES = `SELECT n.node_id AS nodeId, n.instance_id AS instanceId, n.started_at_ms AS startedAtMs, n.heartbeat_at_ms AS heartbeatAtMs,
    n.max_phones AS maxPhones, n.stopping AS stopping, n.url AS url, COUNT(l.phone_id) AS phones,
    MIN(l.acquired_at_ms) AS oldestLeaseAcquiredAtMs, MAX(l.acquired_at_ms) AS newestLeaseAcquiredAtMs
  FROM nodes n LEFT JOIN phone_leases l ON l.node_id = n.node_id AND l.expires_at_ms > ?
  GROUP BY n.node_id ORDER BY n.node_id`

/** Every node with its held leases (leases.ts). */
export function listNodes(db: Database, nowMs: number): NodeSummary[] {
  return db.query<Omit<NodeSummary, "stopping"> & { stopping: number }, [number]>(LIST_NODES).all(nowMs).map((r) => ({ ...r, stopping: r.stopping === 1 }))
}

const NODE_URL = "SELECT url FROM nodes WHERE node_id = ?"

/** The URL a node registered for forwarded requests (leases.ts). */
export function nodeUrl(db: Database, nodeId: string): string | null {
  return db.query<{ url: string | null }, [string]>(NODE_URL).get(nodeId)?.url ?? null
}

const COUNT_UNOWNED = `SELECT COUNT(*) AS n FROM phones p LEFT JOIN phone_leases l ON l.phone_id = p.id
  WHERE (l.phone_id IS NULL OR l.node_id IS NULL OR l.expires_at_ms <= ?) AND ${NEEDS_CONNECTION}`

/** Phones that need a connection and that no node holds at `nowMs` (leases.ts). */
export function countUnownedPhones(db: Database, nowMs: number): number {
  return db.query<{ n: number }, [number]>(COUNT_UNOWNED).get(nowMs)!.n
}

const LIST_LEASES = `SELECT phone_id AS phoneId, node_id AS nodeId, token, acquired_at_ms AS acquiredAtMs, expires_at_ms AS expiresAtMs
  FROM phone_leases ORDER BY phone_id`

/** Every lease row (leases.ts). */
export function listPhoneLeases(db: Database): PhoneLeaseRow[] {
  return db.query<PhoneLeaseRow, []>(LIST_LEASES).all()
}
