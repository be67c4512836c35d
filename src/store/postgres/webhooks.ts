import type { SQL } from "bun"
import type { WebhooksQueries } from "../store"
import type { AttemptRow, DeliveryProgress, DeliveryRow, EndpointRow, EventRow, PendingDelivery } from "../webhooks"

/*
 * The PostgreSQL statements of the webhook outbox, delivery log and attempts: the same rows, in
 * the same order, as src/store/sqlite/webhooks.ts gives on SQLite. Bun returns int8 columns as strings,
 * so every row passes a mapper that makes its numbers numbers. Sets of rows travel as one array
 * parameter per column (`unnest`), so a wave of any size is one statement per table rather than
 * SQLite's chunks of 64, and a backlog's tens of thousands of ids are one `= ANY($1)`.
 */

type Raw = Record<string, unknown>

const num = (v: unknown): number => Number(v)
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))

const ENDPOINT_COLUMNS = `id, account_id AS "accountId", env, url, events, enabled, secret, previous_secret AS "previousSecret",
  previous_secret_expires_at_ms AS "previousSecretExpiresAtMs", created_at_ms AS "createdAtMs", updated_at_ms AS "updatedAtMs"`

function endpointFromRaw(r: Raw): EndpointRow {
  return {
    id: r.id as string,
    accountId: r.accountId as string,
    env: r.env as EndpointRow["env"],
    url: r.url as string,
    // Stored as SQLite stores them (names joined by spaces), so both read alike.
    events: (r.events as string).split(" ").filter(Boolean),
    enabled: r.enabled === true,
    secret: r.secret as string,
    previousSecret: (r.previousSecret as string | null) ?? null,
    previousSecretExpiresAtMs: numOrNull(r.previousSecretExpiresAtMs),
    createdAtMs: num(r.createdAtMs),
    updatedAtMs: num(r.updatedAtMs),
  }
}

const EVENT_COLUMNS = `id, account_id AS "accountId", env, type, body, occurred_at_ms AS "occurredAtMs"`

function eventFromRaw(r: Raw): EventRow {
  return { id: r.id as string, accountId: r.accountId as string, env: r.env as EventRow["env"], type: r.type as string, body: r.body as string, occurredAtMs: num(r.occurredAtMs) }
}

const DELIVERY_COLUMNS = `d.id, d.event_id AS "eventId", d.endpoint_id AS "endpointId", d.status, d.attempt_count AS "attemptCount",
  d.first_attempt_at_ms AS "firstAttemptAtMs", d.next_attempt_at_ms AS "nextAttemptAtMs", d.last_status_code AS "lastStatusCode",
  d.last_error AS "lastError", d.resent_from AS "resentFrom", d.created_at_ms AS "createdAtMs", d.updated_at_ms AS "updatedAtMs"`

export function deliveryFromRaw(r: Raw): DeliveryRow {
  return {
    id: r.id as string,
    eventId: r.eventId as string,
    endpointId: r.endpointId as string,
    status: r.status as DeliveryRow["status"],
    attemptCount: num(r.attemptCount),
    firstAttemptAtMs: numOrNull(r.firstAttemptAtMs),
    nextAttemptAtMs: numOrNull(r.nextAttemptAtMs),
    lastStatusCode: numOrNull(r.lastStatusCode),
    lastError: (r.lastError as string | null) ?? null,
    resentFrom: (r.resentFrom as string | null) ?? null,
    createdAtMs: num(r.createdAtMs),
    updatedAtMs: num(r.updatedAtMs),
  }
}

/** A delivery row with its event's type and body (columns `eventType` and `body`). */
export function pendingFromRaw(r: Raw): PendingDelivery {
  return { delivery: deliveryFromRaw(r), eventType: r.eventType as string, body: r.body as string }
}

function attemptFromRaw(r: Raw): AttemptRow {
  return {
    deliveryId: r.deliveryId as string,
    attemptNumber: num(r.attemptNumber),
    attemptedAtMs: num(r.attemptedAtMs),
    statusCode: numOrNull(r.statusCode),
    error: (r.error as string | null) ?? null,
    latencyMs: num(r.latencyMs),
    responseBody: (r.responseBody as string | null) ?? null,
  }
}

/** Each field of `rows` as one array, in `keys` order: the parameters of an `unnest` insert. */
function columns<T>(rows: readonly T[], keys: readonly (keyof T)[]): unknown[][] {
  return keys.map((key) => rows.map((row) => row[key] ?? null))
}

function endpointQueries(sql: SQL): Pick<WebhooksQueries, "insertEndpoint" | "updateEndpoint" | "deleteEndpoint" | "findEndpoint" | "listEndpoints" | "listEnabledEndpoints"> {
  return {
    async insertEndpoint(row) {
      await sql`INSERT INTO webhook_endpoints (id, account_id, env, url, events, enabled, secret, previous_secret,
        previous_secret_expires_at_ms, created_at_ms, updated_at_ms) VALUES (${row.id}, ${row.accountId}, ${row.env}, ${row.url},
        ${row.events.join(" ")}, ${row.enabled}, ${row.secret}, ${row.previousSecret}, ${row.previousSecretExpiresAtMs},
        ${row.createdAtMs}, ${row.updatedAtMs})`
    },
    async updateEndpoint(row) {
      await sql`UPDATE webhook_endpoints SET url = ${row.url}, events = ${row.events.join(" ")}, enabled = ${row.enabled},
        secret = ${row.secret}, previous_secret = ${row.previousSecret}, previous_secret_expires_at_ms = ${row.previousSecretExpiresAtMs},
        updated_at_ms = ${row.updatedAtMs} WHERE id = ${row.id}`
    },
    async deleteEndpoint(id) {
      await sql`DELETE FROM webhook_endpoints WHERE id = ${id}`
    },
    async findEndpoint(id) {
      const [raw] = await sql.unsafe(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1`, [id])
      return raw ? endpointFromRaw(raw) : null
    },
    async listEndpoints(accountId) {
      const rows = await sql.unsafe(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = $1 ORDER BY created_at_ms, id`, [accountId])
      return rows.map(endpointFromRaw)
    },
    async listEnabledEndpoints(accountId, env) {
      // SQLite gives these in insertion order; the creation order is the same, and stable here.
      const rows = await sql.unsafe(
        `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = $1 AND env = $2 AND enabled ORDER BY created_at_ms, id`,
        [accountId, env],
      )
      return rows.map(endpointFromRaw)
    },
  }
}

function eventQueries(sql: SQL): Pick<WebhooksQueries, "insertEvent" | "findEvent" | "findEventsAt" | "scanEventsMentioning" | "insertEventsAndDeliveries" | "pruneEvents"> {
  return {
    async insertEvent(row) {
      await sql`INSERT INTO events (id, account_id, env, type, body, occurred_at_ms)
        VALUES (${row.id}, ${row.accountId}, ${row.env}, ${row.type}, ${row.body}, ${row.occurredAtMs})`
    },
    async findEvent(id) {
      const [raw] = await sql.unsafe(`SELECT ${EVENT_COLUMNS} FROM events WHERE id = $1`, [id])
      return raw ? eventFromRaw(raw) : null
    },
    async findEventsAt(accountId, env, type, occurredAtMs) {
      const rows = await sql.unsafe(`SELECT ${EVENT_COLUMNS} FROM events WHERE occurred_at_ms = $1 AND account_id = $2 AND env = $3 AND type = $4`, [
        occurredAtMs, accountId, env, type,
      ])
      return rows.map(eventFromRaw)
    },
    async scanEventsMentioning(q) {
      const window = "SELECT * FROM events WHERE occurred_at_ms >= $1 ORDER BY occurred_at_ms LIMIT $2"
      const rows = await sql.unsafe(
        `SELECT ${EVENT_COLUMNS} FROM (${window}) w WHERE account_id = $3 AND env = $4
          AND type = ANY(string_to_array($5, ',')) AND strpos(body, $6) > 0 ORDER BY occurred_at_ms, id`,
        // Event names have no comma (the catalogue's names, domain/event-catalogue.ts).
        [q.fromMs, q.scanLimit, q.accountId, q.env, q.types.join(","), q.text],
      )
      const [extent] = await sql.unsafe(`SELECT count(*) AS scanned, max(occurred_at_ms) AS "lastMs" FROM (${window}) w`, [q.fromMs, q.scanLimit])
      return { events: rows.map(eventFromRaw), searchedUntilMs: num(extent.scanned) < q.scanLimit ? null : num(extent.lastMs) }
    },
    async insertEventsAndDeliveries(events, deliveries) {
      // Events first: the deliveries' foreign keys point at them.
      if (events.length > 0) await insertEvents(sql, events)
      if (deliveries.length > 0) await insertDeliveries(sql, deliveries)
    },
    async pruneEvents(cutoffMs, limit, keepAfter) {
      // Events the RabbitMQ publisher has not had confirmed yet wait for it (src/store/amqp-publisher.ts).
      const [xid, seq] = (keepAfter ?? "18446744073709551615:9223372036854775807").split(":")
      // SKIP LOCKED: two nodes pruning at once take different events instead of queueing on
      // each other's rows. The batch's ids are collected once (ARRAY(…)) and deleted by primary
      // key: under `IN (…)` the planner hash-joined the whole events table for every batch.
      // Deleting an event removes its deliveries and attempts (cascades).
      const result = await sql`DELETE FROM events WHERE id = ANY(ARRAY(
        SELECT e.id FROM events e
        WHERE e.occurred_at_ms < ${cutoffMs}
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
          AND (e.xid, e.seq) <= (${xid}::xid8, ${seq}::int8)
        ORDER BY e.occurred_at_ms LIMIT ${limit} FOR UPDATE SKIP LOCKED))`
      return result.count
    },
  }
}

async function insertEvents(sql: SQL, events: readonly EventRow[]): Promise<void> {
  const [ids, accounts, envs, types, bodies, occurred] = columns(events, ["id", "accountId", "env", "type", "body", "occurredAtMs"])
  await sql`INSERT INTO events (id, account_id, env, type, body, occurred_at_ms)
    SELECT * FROM unnest(${ids}::text[], ${accounts}::text[], ${envs}::text[], ${types}::text[], ${bodies}::text[], ${occurred}::int8[])`
}

const DELIVERY_KEYS = [
  "id", "eventId", "endpointId", "status", "attemptCount", "firstAttemptAtMs", "nextAttemptAtMs", "lastStatusCode", "lastError",
  "resentFrom", "createdAtMs", "updatedAtMs",
] as const satisfies readonly (keyof DeliveryRow)[]

async function insertDeliveries(sql: SQL, deliveries: readonly DeliveryRow[]): Promise<void> {
  const [id, eventId, endpointId, status, attempts, first, next, code, error, resentFrom, created, updated] = columns(deliveries, DELIVERY_KEYS)
  await sql`INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, attempt_count, first_attempt_at_ms,
    next_attempt_at_ms, last_status_code, last_error, resent_from, created_at_ms, updated_at_ms)
    SELECT * FROM unnest(${id}::text[], ${eventId}::text[], ${endpointId}::text[], ${status}::text[], ${attempts}::int8[],
      ${first}::int8[], ${next}::int8[], ${code}::int8[], ${error}::text[], ${resentFrom}::text[], ${created}::int8[], ${updated}::int8[])`
}

const ATTEMPT_KEYS = ["deliveryId", "attemptNumber", "attemptedAtMs", "statusCode", "error", "latencyMs", "responseBody"] as const satisfies readonly (keyof AttemptRow)[]

const PROGRESS_KEYS = [
  "id", "status", "attemptCount", "firstAttemptAtMs", "nextAttemptAtMs", "lastStatusCode", "lastError", "updatedAtMs",
] as const satisfies readonly (keyof DeliveryProgress)[]

/**
 * The attempts of a wave in one INSERT. An attempt whose delivery went with its endpoint (removed
 * while the attempt was in flight) is left out by the join, as on SQLite. An attempt number
 * already recorded is skipped rather than failing the wave: with several nodes, a delivery whose
 * claim expired may be attempted by two of them, and the other results of the wave must still land.
 */
async function insertAttempts(sql: SQL, attempts: readonly AttemptRow[]): Promise<void> {
  const [deliveryId, attemptNumber, attemptedAt, statusCode, error, latency, responseBody] = columns(attempts, ATTEMPT_KEYS)
  await sql`INSERT INTO webhook_attempts (delivery_id, attempt_number, attempted_at_ms, status_code, error, latency_ms, response_body)
    SELECT v.delivery_id, v.attempt_number, v.attempted_at_ms, v.status_code, v.error, v.latency_ms, v.response_body
    FROM unnest(${deliveryId}::text[], ${attemptNumber}::int8[], ${attemptedAt}::int8[], ${statusCode}::int8[], ${error}::text[],
      ${latency}::int8[], ${responseBody}::text[])
      AS v (delivery_id, attempt_number, attempted_at_ms, status_code, error, latency_ms, response_body)
    JOIN webhook_deliveries d ON d.id = v.delivery_id
    ON CONFLICT DO NOTHING`
}

/** The deliveries' progress of a wave in one UPDATE joined to the arrays. */
async function updateProgress(sql: SQL, progress: readonly DeliveryProgress[]): Promise<void> {
  const [id, status, attempts, first, next, code, error, updated] = columns(progress, PROGRESS_KEYS)
  await sql`UPDATE webhook_deliveries AS d SET status = v.status, attempt_count = v.attempt_count,
    first_attempt_at_ms = v.first_attempt_at_ms, next_attempt_at_ms = v.next_attempt_at_ms, last_status_code = v.last_status_code,
    last_error = v.last_error, updated_at_ms = v.updated_at_ms
    FROM unnest(${id}::text[], ${status}::text[], ${attempts}::int8[], ${first}::int8[], ${next}::int8[], ${code}::int8[],
      ${error}::text[], ${updated}::int8[])
      AS v (id, status, attempt_count, first_attempt_at_ms, next_attempt_at_ms, last_status_code, last_error, updated_at_ms)
    WHERE d.id = v.id`
}

function deliveryQueries(sql: SQL): Omit<WebhooksQueries, keyof ReturnType<typeof endpointQueries> | keyof ReturnType<typeof eventQueries>> {
  return {
    async insertDelivery(row) {
      await insertDeliveries(sql, [row])
    },
    async updateDelivery(row) {
      await sql`UPDATE webhook_deliveries SET status = ${row.status}, attempt_count = ${row.attemptCount},
        first_attempt_at_ms = ${row.firstAttemptAtMs}, next_attempt_at_ms = ${row.nextAttemptAtMs}, last_status_code = ${row.lastStatusCode},
        last_error = ${row.lastError}, updated_at_ms = ${row.updatedAtMs} WHERE id = ${row.id}`
    },
    async findDelivery(id) {
      const [raw] = await sql.unsafe(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE d.id = $1`, [id])
      return raw ? deliveryFromRaw(raw) : null
    },
    async findPendingDeliveryEndpoint(id) {
      const [raw] = await sql`SELECT endpoint_id FROM webhook_deliveries WHERE id = ${id} AND status = 'pending'`
      return (raw?.endpoint_id as string | undefined) ?? null
    },
    async listPendingDeliveries() {
      const rows = await sql`SELECT id, next_attempt_at_ms FROM webhook_deliveries WHERE status = 'pending' ORDER BY next_attempt_at_ms, id`
      return rows.map((r: Raw) => ({ id: r.id as string, nextAttemptAtMs: num(r.next_attempt_at_ms) }))
    },
    async listDeliveries(q) {
      const status = q.status ?? null
      const [count] = await sql`SELECT COUNT(*)::int4 AS n FROM webhook_deliveries WHERE endpoint_id = ${q.endpointId}
        AND (${status}::text IS NULL OR status = ${status}::text)`
      const rows = await sql.unsafe(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE d.endpoint_id = $1 AND ($2::text IS NULL OR d.status = $2::text)
        ORDER BY d.created_at_ms DESC, d.id DESC LIMIT $3 OFFSET $4`,
        [q.endpointId, status, q.limit, q.offset],
      )
      return { rows: rows.map(deliveryFromRaw), total: num(count.n) }
    },
    async latestDelivery(endpointId) {
      const [raw] = await sql.unsafe(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE d.endpoint_id = $1 ORDER BY d.created_at_ms DESC, d.id DESC LIMIT 1`, [endpointId])
      return raw ? deliveryFromRaw(raw) : null
    },
    async listDeliveriesOfEvent(eventId) {
      const rows = await sql.unsafe(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE d.event_id = $1 ORDER BY d.created_at_ms, d.id`, [eventId])
      return rows.map(deliveryFromRaw)
    },
    async listDeliveriesWindow(q) {
      // A row comparison, which the (endpoint_id, created_at_ms, id) index serves as one seek.
      const where = ["d.endpoint_id = $1"]
      const params: (string | number | string[])[] = [q.endpointId]
      if (q.before !== null) {
        params.push(q.before.createdAtMs, q.before.id)
        where.push(`(d.created_at_ms, d.id) < ($${params.length - 1}::int8, $${params.length}::text)`)
      }
      if (q.status) {
        params.push(q.status)
        where.push(`d.status = $${params.length}`)
      }
      if (q.eventTypes) {
        params.push([...q.eventTypes])
        where.push(`(SELECT e.type FROM events e WHERE e.id = d.event_id) = ANY($${params.length}::text[])`)
      }
      params.push(q.limit)
      const rows = await sql.unsafe(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE ${where.join(" AND ")} ORDER BY d.created_at_ms DESC, d.id DESC LIMIT $${params.length}`,
        params as never[],
      )
      return rows.map(deliveryFromRaw)
    },
    async insertAttempt(row) {
      await sql`INSERT INTO webhook_attempts (delivery_id, attempt_number, attempted_at_ms, status_code, error, latency_ms, response_body)
        VALUES (${row.deliveryId}, ${row.attemptNumber}, ${row.attemptedAtMs}, ${row.statusCode}, ${row.error}, ${row.latencyMs}, ${row.responseBody})`
    },
    async recordAttempts(attempts, progress) {
      if (attempts.length > 0) await insertAttempts(sql, attempts)
      if (progress.length > 0) await updateProgress(sql, progress)
    },
    async listAttempts(deliveryId) {
      const rows = await sql`SELECT delivery_id AS "deliveryId", attempt_number AS "attemptNumber", attempted_at_ms AS "attemptedAtMs",
        status_code AS "statusCode", error, latency_ms AS "latencyMs", response_body AS "responseBody"
        FROM webhook_attempts WHERE delivery_id = ${deliveryId} ORDER BY attempt_number`
      return rows.map(attemptFromRaw)
    },
  }
}

/** The webhook queries on `sql`: the pool, or the transaction a write runs in. */
export function pgWebhooksQueries(sql: SQL): WebhooksQueries {
  return { ...endpointQueries(sql), ...eventQueries(sql), ...deliveryQueries(sql) }
}
