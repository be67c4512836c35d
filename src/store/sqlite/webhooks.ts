import type { Database } from "bun:sqlite"
import type { Environment } from "../api-keys"
import type { SqlParams } from "./db"
import type { EndpointRow, EventRow, EventScan, DeliveryStatus, DeliveryRow, AttemptRow, DeliveryProgress, DeliveryWindowQuery } from "../webhooks"

type RawEndpoint = Omit<EndpointRow, "events" | "enabled"> & { events: string; enabled: number }

const ENDPOINT_COLUMNS = `id, account_id AS accountId, env, url, events, enabled, secret, previous_secret AS previousSecret,
  previous_secret_expires_at_ms AS previousSecretExpiresAtMs, created_at_ms AS createdAtMs, updated_at_ms AS updatedAtMs`

function endpointFromRaw(raw: RawEndpoint): EndpointRow {
  return { ...raw, events: raw.events.split(" ").filter(Boolean), enabled: raw.enabled === 1 }
}

const INSERT_ENDPOINT = `INSERT INTO webhook_endpoints (id, account_id, env, url, events, enabled, secret, previous_secret,
  previous_secret_expires_at_ms, created_at_ms, updated_at_ms) VALUES ($id, $accountId, $env, $url, $events, $enabled, $secret,
  $previousSecret, $previousSecretExpiresAtMs, $createdAtMs, $updatedAtMs)`

/** Inserts an endpoint. */
export function insertEndpoint(db: Database, row: EndpointRow): void {
  db.query(INSERT_ENDPOINT).run({ ...row, events: row.events.join(" "), enabled: row.enabled ? 1 : 0 })
}

const UPDATE_ENDPOINT = `UPDATE webhook_endpoints SET url = $url, events = $events, enabled = $enabled, secret = $secret,
  previous_secret = $previousSecret, previous_secret_expires_at_ms = $previousSecretExpiresAtMs, updated_at_ms = $updatedAtMs
  WHERE id = $id`

/** Writes every mutable field of an endpoint. */
export function updateEndpoint(db: Database, row: EndpointRow): void {
  db.query(UPDATE_ENDPOINT).run({
    id: row.id,
    url: row.url,
    events: row.events.join(" "),
    enabled: row.enabled ? 1 : 0,
    secret: row.secret,
    previousSecret: row.previousSecret,
    previousSecretExpiresAtMs: row.previousSecretExpiresAtMs,
    updatedAtMs: row.updatedAtMs,
  })
}

const DELETE_ENDPOINT = "DELETE FROM webhook_endpoints WHERE id = ?"

/** Removes an endpoint with its deliveries and their attempts. */
export function deleteEndpoint(db: Database, id: string): void {
  db.query(DELETE_ENDPOINT).run(id)
}

const SELECT_ENDPOINT = `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ?`

/** One endpoint by id. */
export function findEndpoint(db: Database, id: string): EndpointRow | null {
  const raw = db.query<RawEndpoint, [string]>(SELECT_ENDPOINT).get(id)
  return raw ? endpointFromRaw(raw) : null
}

const SELECT_BY_ACCOUNT = `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = ? ORDER BY created_at_ms, id`

/** Every endpoint of an account, both environments. */
export function listEndpoints(db: Database, accountId: string): EndpointRow[] {
  return db.query<RawEndpoint, [string]>(SELECT_BY_ACCOUNT).all(accountId).map(endpointFromRaw)
}

const SELECT_SUBSCRIBED = `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints
  WHERE account_id = $accountId AND env = $env AND enabled = 1`

/** The enabled endpoints of an account and environment. */
export function listEnabledEndpoints(db: Database, accountId: string, env: Environment): EndpointRow[] {
  return db.query<RawEndpoint, SqlParams>(SELECT_SUBSCRIBED).all({ accountId, env }).map(endpointFromRaw)
}

// The statements on the delivery path bind positional parameters: bun:sqlite binds them
// measurably faster than named ones from an object (test/bench/floor.ts).
const INSERT_EVENT = "INSERT INTO events (id, account_id, env, type, body, occurred_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"

/** Inserts an event. */
export function insertEvent(db: Database, row: EventRow): void {
  db.query(INSERT_EVENT).run(row.id, row.accountId, row.env, row.type, row.body, row.occurredAtMs)
}

const SELECT_EVENT = `SELECT id, account_id AS accountId, env, type, body, occurred_at_ms AS occurredAtMs FROM events WHERE id = ?`

/** One event by id. */
export function findEvent(db: Database, id: string): EventRow | null {
  return db.query<EventRow, [string]>(SELECT_EVENT).get(id)
}

const DELIVERY_COLUMNS = `id, event_id AS eventId, endpoint_id AS endpointId, status, attempt_count AS attemptCount,
  first_attempt_at_ms AS firstAttemptAtMs, next_attempt_at_ms AS nextAttemptAtMs, last_status_code AS lastStatusCode,
  last_error AS lastError, resent_from AS resentFrom, created_at_ms AS createdAtMs, updated_at_ms AS updatedAtMs`

const INSERT_DELIVERY = `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, attempt_count, first_attempt_at_ms,
  next_attempt_at_ms, last_status_code, last_error, resent_from, created_at_ms, updated_at_ms)
  VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)`

/** Inserts a delivery. */
export function insertDelivery(db: Database, row: DeliveryRow): void {
  db.query(INSERT_DELIVERY).run(
    row.id, row.eventId, row.endpointId, row.status, row.attemptCount, row.firstAttemptAtMs, row.nextAttemptAtMs,
    row.lastStatusCode, row.lastError, row.resentFrom, row.createdAtMs, row.updatedAtMs,
  )
}

const UPDATE_DELIVERY = `UPDATE webhook_deliveries SET status = ?2, attempt_count = ?3, first_attempt_at_ms = ?4,
  next_attempt_at_ms = ?5, last_status_code = ?6, last_error = ?7, updated_at_ms = ?8 WHERE id = ?1`

/** Writes a delivery's progress. */
export function updateDelivery(db: Database, row: DeliveryRow): void {
  db.query(UPDATE_DELIVERY).run(
    row.id, row.status, row.attemptCount, row.firstAttemptAtMs, row.nextAttemptAtMs, row.lastStatusCode, row.lastError,
    row.updatedAtMs,
  )
}

const SELECT_DELIVERY = `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = ?`

/** One delivery by id. */
export function findDelivery(db: Database, id: string): DeliveryRow | null {
  return db.query<DeliveryRow, [string]>(SELECT_DELIVERY).get(id)
}

const SELECT_PENDING_ENDPOINT = "SELECT endpoint_id AS endpointId FROM webhook_deliveries WHERE id = ? AND status = 'pending'"

/** The endpoint of a delivery that is still pending, or null (delivered, given up, or gone). */
export function findPendingDeliveryEndpoint(db: Database, id: string): string | null {
  return db.query<{ endpointId: string }, [string]>(SELECT_PENDING_ENDPOINT).get(id)?.endpointId ?? null
}

const SELECT_PENDING = `SELECT id, next_attempt_at_ms AS nextAttemptAtMs FROM webhook_deliveries
  WHERE status = 'pending' ORDER BY next_attempt_at_ms`

/** Every delivery still to attempt, with when (loaded at start so nothing is lost across restarts). */
export function listPendingDeliveries(db: Database): { id: string; nextAttemptAtMs: number }[] {
  return db.query<{ id: string; nextAttemptAtMs: number }, []>(SELECT_PENDING).all()
}

const COUNT_BY_ENDPOINT = `SELECT COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = $endpointId
  AND ($status IS NULL OR status = $status)`
const PAGE_BY_ENDPOINT = `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = $endpointId
  AND ($status IS NULL OR status = $status) ORDER BY created_at_ms DESC, id DESC LIMIT $limit OFFSET $offset`

/** One page of an endpoint's deliveries, newest first (an operator view, so COUNT is acceptable). */
export function listDeliveries(
  db: Database,
  q: { endpointId: string; status?: DeliveryStatus; limit: number; offset: number },
): { rows: DeliveryRow[]; total: number } {
  const filters = { endpointId: q.endpointId, status: q.status ?? null }
  const total = db.query<{ n: number }, SqlParams>(COUNT_BY_ENDPOINT).get(filters)!.n
  const rows = db.query<DeliveryRow, SqlParams>(PAGE_BY_ENDPOINT).all({ ...filters, limit: q.limit, offset: q.offset })
  return { rows, total }
}

const LATEST_BY_ENDPOINT = `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = ?
  ORDER BY created_at_ms DESC, id DESC LIMIT 1`

/** An endpoint's newest delivery (one seek on the endpoint index), or null when it has none. */
export function latestDelivery(db: Database, endpointId: string): DeliveryRow | null {
  return db.query<DeliveryRow, [string]>(LATEST_BY_ENDPOINT).get(endpointId)
}

const EVENTS_AT = `SELECT id, account_id AS accountId, env, type, body, occurred_at_ms AS occurredAtMs FROM events
  WHERE occurred_at_ms = ? AND account_id = ? AND env = ? AND type = ?`

/** The events of one type an account recorded at one instant (a seek on the occurred index). */
export function findEventsAt(db: Database, accountId: string, env: Environment, type: string, occurredAtMs: number): EventRow[] {
  return db.query<EventRow, [number, string, string, string]>(EVENTS_AT).all(occurredAtMs, accountId, env, type)
}

const SCAN_WINDOW = "SELECT * FROM events WHERE occurred_at_ms >= ? ORDER BY occurred_at_ms LIMIT ?"
const SCAN_EVENTS = `SELECT id, account_id AS accountId, env, type, body, occurred_at_ms AS occurredAtMs FROM (${SCAN_WINDOW})
  WHERE account_id = ? AND env = ? AND type IN (SELECT value FROM json_each(?)) AND instr(body, ?) > 0 ORDER BY occurred_at_ms, id`
const SCAN_EXTENT = `SELECT count(*) AS scanned, max(occurred_at_ms) AS lastMs FROM (${SCAN_WINDOW})`

/** The events of some types whose body contains a text, within a bounded walk of the occurred index. */
export function scanEventsMentioning(db: Database, q: EventScan): { events: EventRow[]; searchedUntilMs: number | null } {
  const events = db.query<EventRow, [number, number, string, string, string, string]>(SCAN_EVENTS).all(q.fromMs, q.scanLimit, q.accountId, q.env, JSON.stringify(q.types), q.text)
  const extent = db.query<{ scanned: number; lastMs: number | null }, [number, number]>(SCAN_EXTENT).get(q.fromMs, q.scanLimit)!
  return { events, searchedUntilMs: extent.scanned < q.scanLimit ? null : extent.lastMs }
}

const DELIVERIES_OF_EVENT = `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE event_id = ? ORDER BY created_at_ms, id`

/** Every delivery of one event (to each endpoint, resends included). */
export function listDeliveriesOfEvent(db: Database, eventId: string): DeliveryRow[] {
  return db.query<DeliveryRow, [string]>(DELIVERIES_OF_EVENT).all(eventId)
}

/**
 * One keyset page of an endpoint's deliveries, newest first, strictly older than `before` (a
 * seek on the endpoint index at any depth: no OFFSET, no count).
 */
export function listDeliveriesWindow(db: Database, q: DeliveryWindowQuery): DeliveryRow[] {
  // The filters narrow the (endpoint_id, created_at_ms, id) index walk; the event's type is read
  // by primary key per row the walk meets.
  const where = ["endpoint_id = ?"]
  const params: (string | number)[] = [q.endpointId]
  if (q.before !== null) {
    where.push("(created_at_ms, id) < (?, ?)")
    params.push(q.before.createdAtMs, q.before.id)
  }
  if (q.status) {
    where.push("status = ?")
    params.push(q.status)
  }
  if (q.eventTypes) {
    where.push(`(SELECT type FROM events e WHERE e.id = event_id) IN (${q.eventTypes.map(() => "?").join(", ") || "NULL"})`)
    params.push(...q.eventTypes)
  }
  return db
    .query<DeliveryRow, (string | number)[]>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${where.join(" AND ")}
      ORDER BY created_at_ms DESC, id DESC LIMIT ?`)
    .all(...params, q.limit)
}

const INSERT_ATTEMPT = `INSERT INTO webhook_attempts (delivery_id, attempt_number, attempted_at_ms, status_code, error, latency_ms, response_body)
  VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`

/** Records one attempt. */
export function insertAttempt(db: Database, row: AttemptRow): void {
  db.query(INSERT_ATTEMPT).run(row.deliveryId, row.attemptNumber, row.attemptedAtMs, row.statusCode, row.error, row.latencyMs, row.responseBody)
}

/** `(?, ?, …), (…)` for `rows` rows of `columns` positional parameters. */
function valuesList(rows: number, columns: number): string {
  const row = `(${Array.from({ length: columns }, () => "?").join(", ")})`
  return Array.from({ length: rows }, () => row).join(", ")
}

/**
 * Row counts a set-based statement is prepared for. A set is cut into chunks of these sizes
 * (largest first), so a handful of statements serve every wave: preparing a statement for each
 * wave's exact size cost more than the statements saved (bun:sqlite keeps only a few
 * `query()` statements cached).
 */
const CHUNK_ROWS = [64, 16, 4, 1] as const

type Statement = ReturnType<Database["prepare"]>

/** Statements prepared once per database and text (the writer's connection lives as long as the process). */
const prepared = new WeakMap<Database, Map<string, Statement>>()

function statement(db: Database, sql: string): Statement {
  let byText = prepared.get(db)
  if (!byText) prepared.set(db, (byText = new Map()))
  let stmt = byText.get(sql)
  if (!stmt) byText.set(sql, (stmt = db.prepare(sql)))
  return stmt
}

/** Runs `sqlFor(rows)` over `items` in chunks of CHUNK_ROWS sizes, binding each item's `columns` parameters in order. */
function runInChunks<T>(db: Database, items: readonly T[], sqlFor: (rows: number) => string, params: (item: T) => unknown[]): void {
  let at = 0
  while (at < items.length) {
    const rows = CHUNK_ROWS.find((n) => n <= items.length - at)!
    const values: unknown[] = []
    for (let i = at; i < at + rows; i++) values.push(...params(items[i]!))
    statement(db, sqlFor(rows)).run(...(values as never[]))
    at += rows
  }
}

/** The statement text for each row count, built once. */
function perRowCount(build: (rows: number) => string): (rows: number) => string {
  const texts = new Map<number, string>()
  return (rows) => {
    let text = texts.get(rows)
    if (text === undefined) texts.set(rows, (text = build(rows)))
    return text
  }
}

// An attempt whose delivery went with its endpoint (removed while the attempt was in flight) has
// no row to belong to: the join leaves it out instead of failing the whole set on the foreign key.
// An attempt number already recorded is skipped for the same reason: with several nodes (the
// PostgreSQL store, same statement there), a delivery whose claim expired may be attempted twice.
// (`WHERE true` keeps SQLite from reading ON CONFLICT as part of the join.)
const insertAttemptsSql = perRowCount((rows) => `INSERT INTO webhook_attempts (delivery_id, attempt_number, attempted_at_ms, status_code,
  error, latency_ms, response_body) SELECT v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, v.column7
  FROM (VALUES ${valuesList(rows, 7)}) AS v JOIN webhook_deliveries d ON d.id = v.column1 WHERE true ON CONFLICT DO NOTHING`)

const updateDeliveriesSql = perRowCount((rows) => `UPDATE webhook_deliveries SET status = v.column2, attempt_count = v.column3,
  first_attempt_at_ms = v.column4, next_attempt_at_ms = v.column5, last_status_code = v.column6, last_error = v.column7,
  updated_at_ms = v.column8 FROM (VALUES ${valuesList(rows, 8)}) AS v WHERE webhook_deliveries.id = v.column1`)

/**
 * Records a wave of attempts and the progress of their deliveries with set-based statements
 * (multi-row INSERTs, and UPDATEs joined to a VALUES list, up to 64 rows each) instead of two
 * statements per attempt. Run it inside one write transaction.
 */
export function recordAttempts(db: Database, attempts: readonly AttemptRow[], progress: readonly DeliveryProgress[]): void {
  runInChunks(db, attempts, insertAttemptsSql, (a) => [a.deliveryId, a.attemptNumber, a.attemptedAtMs, a.statusCode, a.error, a.latencyMs, a.responseBody])
  runInChunks(db, progress, updateDeliveriesSql, (p) => [p.id, p.status, p.attemptCount, p.firstAttemptAtMs, p.nextAttemptAtMs, p.lastStatusCode, p.lastError, p.updatedAtMs])
}

const insertEventsSql = perRowCount((rows) => `INSERT INTO events (id, account_id, env, type, body, occurred_at_ms) VALUES ${valuesList(rows, 6)}`)

const insertDeliveriesSql = perRowCount((rows) => `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, attempt_count,
  first_attempt_at_ms, next_attempt_at_ms, last_status_code, last_error, resent_from, created_at_ms, updated_at_ms)
  VALUES ${valuesList(rows, 12)}`)

/**
 * Inserts events and their deliveries with multi-row INSERTs (up to 64 rows each), as a sandbox
 * sweep's many transitions need, instead of one statement per row. Run it inside the write
 * transaction of the state change the events announce.
 */
export function insertEventsAndDeliveries(db: Database, events: readonly EventRow[], deliveries: readonly DeliveryRow[]): void {
  runInChunks(db, events, insertEventsSql, (e) => [e.id, e.accountId, e.env, e.type, e.body, e.occurredAtMs])
  runInChunks(db, deliveries, insertDeliveriesSql, (d) => [
    d.id, d.eventId, d.endpointId, d.status, d.attemptCount, d.firstAttemptAtMs, d.nextAttemptAtMs,
    d.lastStatusCode, d.lastError, d.resentFrom, d.createdAtMs, d.updatedAtMs,
  ])
}

const SELECT_ATTEMPTS = `SELECT delivery_id AS deliveryId, attempt_number AS attemptNumber, attempted_at_ms AS attemptedAtMs,
  status_code AS statusCode, error, latency_ms AS latencyMs, response_body AS responseBody
  FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt_number`

/** A delivery's attempts, in order. */
export function listAttempts(db: Database, deliveryId: string): AttemptRow[] {
  return db.query<AttemptRow, [string]>(SELECT_ATTEMPTS).all(deliveryId)
}

// Oldest first through events_occurred; an event with a delivery still pending is kept until it
// ends. Deleting an event removes its deliveries and their attempts (foreign-key cascades).
const PRUNE_EVENTS = `DELETE FROM events WHERE id IN (
  SELECT e.id FROM events e
  WHERE e.occurred_at_ms < $cutoffMs
    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
    -- The newest event stays, so a new row's rowid never falls below an open stream's position
    -- (src/store/sqlite/event-streams.ts).
    AND e.rowid < (SELECT MAX(rowid) FROM events)
    -- Events the RabbitMQ publisher has not had confirmed yet wait for it (src/store/amqp-publisher.ts).
    AND e.rowid <= $keepAfter
  ORDER BY e.occurred_at_ms LIMIT $limit)`

/** Deletes up to `limit` events that occurred before `cutoffMs` and are done with, with their deliveries and attempts; returns how many events. */
export function pruneEvents(db: Database, cutoffMs: number, limit: number, keepAfter: string | null = null): number {
  return db.query(PRUNE_EVENTS).run({ cutoffMs, limit, keepAfter: keepAfter === null ? Number.MAX_SAFE_INTEGER : Number(keepAfter) }).changes
}
