import type { Environment, MessageStatus } from "../../lib/vocabulary"
import { COUNTER_SHARDS } from "./schema-1"

/*
 * The message counters on PostgreSQL (sharded, src/store/postgres/schema-1.ts): a write adds its
 * delta to the shard of its connection, pg_backend_pid() modulo the shard count. Every statement
 * of one transaction runs on one connection, so a transaction touches one shard of a counter and
 * two concurrent transactions usually touch different ones: sends on many nodes do not queue on
 * one row lock. Rows are written in key order, so two transactions that do share a shard lock
 * them in the same order and wait for each other rather than deadlock.
 */

/** The shard a statement on this connection writes to. */
export const COUNTER_SHARD = `(pg_backend_pid() % ${COUNTER_SHARDS})::int2`

/** What one message moves: its phone's counter and its creation day's counter, for one status. */
export interface MessageCountDelta {
  accountId: string
  env: Environment
  phoneId: string
  /** The UTC day the message was created on (the day a status change counts on too). */
  dayMs: number
  status: MessageStatus
  delta: number
}

/** The CTEs that count one new message: the row `source` returns, its columns named by the expressions in `p`. */
export function insertCountsCtes(source: string, p: { accountId: string; env: string; phoneId: string; status: string; dayMs: string }): string {
  return `c AS (
  INSERT INTO message_counts (account_id, env, phone_id, status, shard, n)
  SELECT ${p.accountId}, ${p.env}, ${p.phoneId}, ${p.status}, ${COUNTER_SHARD}, 1 FROM ${source}
  ON CONFLICT (account_id, env, phone_id, status, shard) DO UPDATE SET n = message_counts.n + 1
), d AS (
  INSERT INTO message_daily_counts (account_id, env, day_ms, status, shard, n)
  SELECT ${p.accountId}, ${p.env}, ${p.dayMs}, ${p.status}, ${COUNTER_SHARD}, 1 FROM ${source}
  ON CONFLICT (account_id, env, day_ms, status, shard) DO UPDATE SET n = message_daily_counts.n + 1
)`
}

/**
 * The CTEs that add net changes to both counter tables from ten array parameters starting at
 * `$first` (see countParams), to join the statement that makes the changes.
 */
export function addCountsCtes(first: number): string {
  const $ = (i: number) => `$${first + i}`
  return `c AS (
  INSERT INTO message_counts (account_id, env, phone_id, status, shard, n)
  SELECT a, e, p, s, ${COUNTER_SHARD}, n FROM unnest(${$(0)}::text[], ${$(1)}::text[], ${$(2)}::text[], ${$(3)}::text[], ${$(4)}::int8[]) AS v(a, e, p, s, n)
  ON CONFLICT (account_id, env, phone_id, status, shard) DO UPDATE SET n = message_counts.n + excluded.n
), d AS (
  INSERT INTO message_daily_counts (account_id, env, day_ms, status, shard, n)
  SELECT a, e, d, s, ${COUNTER_SHARD}, n FROM unnest(${$(5)}::text[], ${$(6)}::text[], ${$(7)}::int8[], ${$(8)}::text[], ${$(9)}::int8[]) AS v(a, e, d, s, n)
  ON CONFLICT (account_id, env, day_ms, status, shard) DO UPDATE SET n = message_daily_counts.n + excluded.n
)`
}

/**
 * The ten parameters of addCountsCtes: the net change of each (phone, status) and (day, status),
 * in key order; a net change of zero writes nothing, as on SQLite.
 */
export function countParams(deltas: readonly MessageCountDelta[]): unknown[] {
  const byPhone = new Map<string, MessageCountDelta>()
  const byDay = new Map<string, MessageCountDelta>()
  for (const d of deltas) {
    const phoneKey = `${d.accountId}\u0000${d.env}\u0000${d.phoneId}\u0000${d.status}`
    const dayKey = `${d.accountId}\u0000${d.env}\u0000${String(d.dayMs).padStart(16, "0")}\u0000${d.status}`
    const p = byPhone.get(phoneKey) ?? byPhone.set(phoneKey, { ...d, delta: 0 }).get(phoneKey)!
    const q = byDay.get(dayKey) ?? byDay.set(dayKey, { ...d, delta: 0 }).get(dayKey)!
    p.delta += d.delta
    q.delta += d.delta
  }
  const sorted = (m: Map<string, MessageCountDelta>) => [...m.entries()].filter(([, d]) => d.delta !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d)
  const phones = sorted(byPhone)
  const days = sorted(byDay)
  return [
    phones.map((d) => d.accountId), phones.map((d) => d.env), phones.map((d) => d.phoneId), phones.map((d) => d.status), phones.map((d) => d.delta),
    days.map((d) => d.accountId), days.map((d) => d.env), days.map((d) => d.dayMs), days.map((d) => d.status), days.map((d) => d.delta),
  ]
}
