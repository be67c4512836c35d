import type { SQL } from "bun"
import { FORGET_NODE_AFTER_MS, NEEDS_CONNECTION, LeaseLostError, NodeIdInUseError, type HeldLease, type LeaseQueries, type NodeSummary, type PhoneLeaseRow } from "../leases"

/*
 * Nodes and phone leases on PostgreSQL (tables of migration 4; the rules are in
 * src/store/leases.ts). Many nodes run these at once, so each method is ONE statement: its
 * parts (CTEs) see one snapshot and commit together, whether it runs on the pool or inside a
 * write. Correctness under concurrency rests on the row-level rechecks PostgreSQL makes:
 * - claims lock the candidate lease rows FOR NO KEY UPDATE SKIP LOCKED (every phone has one, see
 *   migration-4-leases.ts), so concurrent claimers take different phones instead of queueing on
 *   each other, and a row a concurrent claim changed is rechecked, so two claims never both win;
 * - assertLease locks the lease row FOR SHARE, which claims skip, so a write that passed the
 *   fencing check commits before any other node can take the phone.
 * Bun returns int8 as strings: every *_ms and token goes through Number().
 */

const REGISTER = `WITH reg AS (
    INSERT INTO nodes (node_id, instance_id, started_at_ms, heartbeat_at_ms, max_phones, stopping, url)
    VALUES ($1, $2, $3::int8, $3::int8, $4::int4, false, $7)
    ON CONFLICT (node_id) DO UPDATE SET instance_id = EXCLUDED.instance_id, started_at_ms = EXCLUDED.started_at_ms,
      heartbeat_at_ms = EXCLUDED.heartbeat_at_ms, max_phones = EXCLUDED.max_phones, stopping = false, url = EXCLUDED.url
    WHERE nodes.instance_id = EXCLUDED.instance_id OR nodes.stopping OR nodes.heartbeat_at_ms <= $5::int8
    RETURNING node_id
  ), freed AS (
    UPDATE phone_leases SET node_id = NULL, expires_at_ms = $3::int8 WHERE node_id = $1 AND EXISTS (SELECT 1 FROM reg)
  ), forgotten AS (
    DELETE FROM nodes WHERE heartbeat_at_ms <= $6::int8 AND node_id <> $1
  )
  SELECT (SELECT count(*) FROM reg)::int4 AS registered, (SELECT heartbeat_at_ms FROM nodes WHERE node_id = $1) AS "holderHeartbeatAtMs"`

// The heartbeat and the renewal of every unexpired lease, together: a node that is no longer
// the registered instance of its id renews nothing. The LEFT JOIN keeps one row when none is held.
const RENEW = `WITH hb AS (
    UPDATE nodes SET heartbeat_at_ms = $3::int8 WHERE node_id = $1 AND instance_id = $2 AND NOT stopping RETURNING node_id
  ), renewed AS (
    UPDATE phone_leases SET expires_at_ms = $4::int8
    WHERE node_id = $1 AND expires_at_ms > $3::int8 AND EXISTS (SELECT 1 FROM hb)
    RETURNING phone_id, token, expires_at_ms
  )
  SELECT h.registered, r.phone_id AS "phoneId", r.token, r.expires_at_ms AS "expiresAtMs"
  FROM (SELECT count(*)::int4 AS registered FROM hb) h LEFT JOIN renewed r ON true
  ORDER BY r.phone_id`

// Every phone has a lease row (migration 4's trigger). Only phones that need a connection are
// candidates; the test on phones sits in a subquery so that only the lease rows are locked (a
// status write holding a phone's row does not hide it). A candidate another claim changed after
// this statement's snapshot is rechecked once locked and skipped if no longer free; the UPDATE's
// own WHERE repeats the test against the row as committed.
const CLAIM = `WITH me AS (
    SELECT 1 FROM nodes WHERE node_id = $1 AND instance_id = $2 AND NOT stopping
  ), candidates AS (
    SELECT phone_id FROM phone_leases
    WHERE EXISTS (SELECT 1 FROM me) AND (node_id IS NULL OR expires_at_ms <= $3::int8)
      AND EXISTS (SELECT 1 FROM phones p WHERE p.id = phone_leases.phone_id AND ${NEEDS_CONNECTION})
    ORDER BY phone_id LIMIT $5::int4
    FOR NO KEY UPDATE SKIP LOCKED
  )
  UPDATE phone_leases l SET node_id = $1, token = l.token + 1, acquired_at_ms = $3::int8, expires_at_ms = $4::int8
  FROM candidates c WHERE l.phone_id = c.phone_id AND (l.node_id IS NULL OR l.expires_at_ms <= $3::int8)
  RETURNING l.phone_id AS "phoneId", l.token, l.expires_at_ms AS "expiresAtMs"`

// The WHERE is evaluated again on the locked row, so of two nodes claiming at once one wins.
const CLAIM_ONE = `UPDATE phone_leases l SET node_id = $1, token = l.token + 1, acquired_at_ms = $3::int8, expires_at_ms = $4::int8
  WHERE l.phone_id = $5 AND (l.node_id IS NULL OR l.expires_at_ms <= $3::int8)
    AND EXISTS (SELECT 1 FROM nodes WHERE node_id = $1 AND instance_id = $2 AND NOT stopping)
  RETURNING l.phone_id AS "phoneId", l.token, l.expires_at_ms AS "expiresAtMs"`

const RELEASE_UNNEEDED = `UPDATE phone_leases l SET node_id = NULL, expires_at_ms = $3::int8
  WHERE l.phone_id = $2 AND l.node_id = $1 AND l.expires_at_ms > $3::int8
    AND NOT EXISTS (SELECT 1 FROM phones p WHERE p.id = $2 AND ${NEEDS_CONNECTION})
  RETURNING l.phone_id`

const RELEASE = `WITH stop AS (
    UPDATE nodes SET stopping = true, heartbeat_at_ms = $3::int8 WHERE node_id = $1 AND instance_id = $2 RETURNING node_id
  ), freed AS (
    UPDATE phone_leases SET node_id = NULL, expires_at_ms = $3::int8 WHERE node_id = $1 AND EXISTS (SELECT 1 FROM stop) RETURNING phone_id
  )
  SELECT count(*)::int4 AS n FROM freed`

const HOLDS = `SELECT 1 AS yes FROM phone_leases
  WHERE phone_id = $1 AND node_id = $2 AND token = $3::int8 AND expires_at_ms > $4::int8 FOR SHARE`

const LIST_NODES = `SELECT n.node_id AS "nodeId", n.instance_id AS "instanceId", n.started_at_ms AS "startedAtMs",
    n.heartbeat_at_ms AS "heartbeatAtMs", n.max_phones AS "maxPhones", n.stopping, n.url, count(l.phone_id)::int4 AS phones,
    min(l.acquired_at_ms) AS "oldestLeaseAcquiredAtMs", max(l.acquired_at_ms) AS "newestLeaseAcquiredAtMs"
  FROM nodes n LEFT JOIN phone_leases l ON l.node_id = n.node_id AND l.expires_at_ms > $1::int8
  GROUP BY n.node_id ORDER BY n.node_id`

const NODE_URL = "SELECT url FROM nodes WHERE node_id = $1"

const COUNT_UNOWNED = `SELECT count(*)::int4 AS n FROM phones p LEFT JOIN phone_leases l ON l.phone_id = p.id
  WHERE (l.phone_id IS NULL OR l.node_id IS NULL OR l.expires_at_ms <= $1::int8) AND ${NEEDS_CONNECTION}`

// Both reads in one statement, so they see one snapshot.
const CENSUS = `WITH listed AS (${LIST_NODES}), unowned AS (${COUNT_UNOWNED})
  SELECT u.n AS unowned, listed.* FROM unowned u LEFT JOIN listed ON true ORDER BY listed."nodeId"`

const LIST_LEASES = `SELECT phone_id AS "phoneId", node_id AS "nodeId", token, acquired_at_ms AS "acquiredAtMs", expires_at_ms AS "expiresAtMs"
  FROM phone_leases ORDER BY phone_id`

type Int8 = string | number
const orNull = (v: Int8 | null): number | null => (v === null ? null : Number(v))
const nodeSummary = (r: Record<string, unknown>): NodeSummary => ({
  nodeId: r.nodeId as string,
  instanceId: r.instanceId as string,
  startedAtMs: Number(r.startedAtMs),
  heartbeatAtMs: Number(r.heartbeatAtMs),
  maxPhones: r.maxPhones as number,
  stopping: r.stopping as boolean,
  url: (r.url as string | null) ?? null,
  phones: r.phones as number,
  oldestLeaseAcquiredAtMs: orNull(r.oldestLeaseAcquiredAtMs as Int8 | null),
  newestLeaseAcquiredAtMs: orNull(r.newestLeaseAcquiredAtMs as Int8 | null),
})
const held = (r: { phoneId: string; token: Int8; expiresAtMs: Int8 }): HeldLease => ({ phoneId: r.phoneId, token: Number(r.token), expiresAtMs: Number(r.expiresAtMs) })

/** The lease queries on `sql` (the pool, or the current transaction). */
export function pgLeaseQueries(sql: SQL): LeaseQueries {
  return {
    async registerNode(r) {
      const [row] = await sql.unsafe(REGISTER, [r.nodeId, r.instanceId, r.nowMs, r.maxPhones, r.nowMs - r.leaseMs, r.nowMs - FORGET_NODE_AFTER_MS, r.url ?? null])
      if (row.registered === 1) return
      throw new NodeIdInUseError(r.nodeId, r.nowMs - (orNull(row.holderHeartbeatAtMs) ?? r.nowMs), r.leaseMs)
    },
    async renewLeases(node, nowMs, leaseMs) {
      const rows = await sql.unsafe(RENEW, [node.nodeId, node.instanceId, nowMs, nowMs + leaseMs])
      if (rows[0].registered !== 1) return { registered: false, held: [] }
      return { registered: true, held: rows.filter((r: { phoneId: string | null }) => r.phoneId !== null).map(held) }
    },
    async claimPhones(node, limit, nowMs, leaseMs) {
      if (limit <= 0) return []
      const rows = await sql.unsafe(CLAIM, [node.nodeId, node.instanceId, nowMs, nowMs + leaseMs, limit])
      return (rows.map(held) as HeldLease[]).sort((a, b) => (a.phoneId < b.phoneId ? -1 : a.phoneId > b.phoneId ? 1 : 0))
    },
    async claimPhone(node, phoneId, nowMs, leaseMs) {
      const [row] = await sql.unsafe(CLAIM_ONE, [node.nodeId, node.instanceId, nowMs, nowMs + leaseMs, phoneId])
      return row ? (held(row) as HeldLease) : null
    },
    async releaseUnneededLease(node, phoneId, nowMs) {
      return (await sql.unsafe(RELEASE_UNNEEDED, [node.nodeId, phoneId, nowMs])).length > 0
    },
    async releaseNode(node, nowMs) {
      const [row] = await sql.unsafe(RELEASE, [node.nodeId, node.instanceId, nowMs])
      return row.n as number
    },
    async assertLease(phoneId, nodeId, token, nowMs) {
      const rows = await sql.unsafe(HOLDS, [phoneId, nodeId, token, nowMs])
      if (rows.length === 0) throw new LeaseLostError(phoneId, nodeId, token)
    },
    async listNodes(nowMs) {
      return (await sql.unsafe(LIST_NODES, [nowMs])).map(nodeSummary)
    },
    async nodeUrl(nodeId) {
      const [row] = await sql.unsafe(NODE_URL, [nodeId])
      return (row?.url as string | null | undefined) ?? null
    },
    async leaseCensus(nowMs) {
      const rows: Record<string, unknown>[] = await sql.unsafe(CENSUS, [nowMs])
      return { unowned: rows[0]!.unowned as number, nodes: rows.filter((r) => r.nodeId !== null).map(nodeSummary) }
    },
    async countUnownedPhones(nowMs) {
      const [row] = await sql.unsafe(COUNT_UNOWNED, [nowMs])
      return row.n as number
    },
    async listPhoneLeases() {
      const rows = await sql.unsafe(LIST_LEASES, [])
      return rows.map(
        (r: { phoneId: string; nodeId: string | null; token: Int8; acquiredAtMs: Int8; expiresAtMs: Int8 }): PhoneLeaseRow => ({
          phoneId: r.phoneId,
          nodeId: r.nodeId,
          token: Number(r.token),
          acquiredAtMs: Number(r.acquiredAtMs),
          expiresAtMs: Number(r.expiresAtMs),
        }),
      )
    },
  }
}
