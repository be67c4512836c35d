import { CHAT_ALIASES_SQL } from "./migration-19-chat-aliases"
import type { SQL } from "bun"
import { SchemaTooNewError } from "../schema-version"
import { DELIVERY_CLAIMS_SQL } from "./migration-3-delivery-claims"
import { LEASES_SQL } from "./migration-4-leases"
import { RATE_BUCKETS_SQL } from "./migration-5-rate-buckets"
import { NODE_URLS_SQL } from "./migration-6-node-urls"
import { MESSAGE_SECRETS_SQL } from "./migration-7-message-secrets"
import { WA_CONTACTS_SQL } from "./migration-8-wa-contacts"
import { SANDBOX_BLOCKS_SQL } from "./migration-14-sandbox-blocks"
import { LABELS_SQL } from "./migration-18-labels"
import { EVENT_STREAMS_SQL } from "./migration-21-event-streams"
import { AMQP_PUBLISHER_SQL } from "./migration-22-amqp-publisher"
import { OFFLINE_WATCHDOG_SQL } from "./migration-9-offline-watchdog"
import { PHONES_WA_CLIENT_SQL } from "./migration-10-phones-wa-client"
import { POLLS_SQL } from "./migration-11-polls"
import { SANDBOX_GROUPS_SQL } from "./migration-13-sandbox-groups"
import { SCHEMA_1 } from "./schema-1"
import { CALLS_SQL } from "./migration-12-calls"
import { CALL_ENVIRONMENTS_SQL } from "./migration-15-call-environments"
import { CHATS_SQL } from "./migration-16-chats"
import { HISTORY_SETTINGS_SQL } from "./history-settings"
import { CHAT_INBOX_INDEXES_SQL } from "../chat-inbox-indexes"

/*
 * The PostgreSQL schema's own forward-only migrations (the SQLite ones are src/store/sqlite/migrations.ts;
 * the two lists are numbered independently). Each migration's SQL lives in a module of its own
 * (schema-1.ts, …); this list has one line per migration. Append only; never edit one that has
 * shipped.
 */

/** One forward-only schema change, shipped inside the binary. */
export interface PgMigration {
  version: number
  name: string
  /** Runs inside the migration's transaction; `tx` is that transaction. */
  up(tx: SQL): Promise<unknown>
}

/** A migration that runs one SQL text (several statements are allowed: it has no parameters). */
export const sqlMigration = (version: number, name: string, text: string): PgMigration => ({ version, name, up: (tx) => tx.unsafe(text) })

/** Every PostgreSQL migration, in order. */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  sqlMigration(1, "initial: the schema of SQLite migration 14, for several nodes", SCHEMA_1),
  sqlMigration(3, "webhook delivery claims", DELIVERY_CLAIMS_SQL),
  sqlMigration(4, "nodes and phone leases", LEASES_SQL),
  sqlMigration(5, "shared rate-limit buckets", RATE_BUCKETS_SQL),
  sqlMigration(6, "node URLs for forwarded requests", NODE_URLS_SQL),
  sqlMigration(7, "message secrets", MESSAGE_SECRETS_SQL),
  sqlMigration(8, "usernames and WhatsApp contacts", WA_CONTACTS_SQL),
  sqlMigration(9, "offline-marker watchdog on phones", OFFLINE_WATCHDOG_SQL),
  sqlMigration(10, "phones' WhatsApp Web version and client expiry", PHONES_WA_CLIENT_SQL),
  sqlMigration(11, "polls and their votes", POLLS_SQL),
  sqlMigration(12, "calls and call policies", CALLS_SQL),
  sqlMigration(13, "sandbox groups", SANDBOX_GROUPS_SQL),
  sqlMigration(14, "sandbox block lists", SANDBOX_BLOCKS_SQL),
  sqlMigration(15, "calls and call replies by environment", CALL_ENVIRONMENTS_SQL),
  sqlMigration(16, "chats, the phone's own and history messages, and contacts", CHATS_SQL),
  sqlMigration(17, "history settings per phone", HISTORY_SETTINGS_SQL),
  sqlMigration(18, "WhatsApp Business labels", LABELS_SQL),
  sqlMigration(19, "one chat per contact by number and LID, revoked previews, history retention index", CHAT_ALIASES_SQL),
  sqlMigration(20, "the inbox order's indexes on chats", CHAT_INBOX_INDEXES_SQL),
  sqlMigration(21, "event stream positions and consumers", EVENT_STREAMS_SQL),
  sqlMigration(22, "the RabbitMQ publisher's cursor and lease", AMQP_PUBLISHER_SQL),
]

/**
 * The numbers no PostgreSQL migration has, with why, for `wagate migrate` to say. The runner
 * needs the numbers only to increase, and a shipped list is never edited, so a gap stays.
 */
export const PG_MIGRATION_GAPS: Readonly<Record<number, string>> = {
  2: "the number was set aside for the PostgreSQL message queries while they were written beside migrations 3 and 4, and they needed no schema change",
}

/** The newest PostgreSQL schema version this binary knows. */
export function latestPostgresSchemaVersion(migrations: readonly PgMigration[] = PG_MIGRATIONS): number {
  return migrations.at(-1)?.version ?? 0
}

/*
 * Nodes starting at once, or `wagate migrate` run on two of them, must not apply a migration
 * twice: every migration transaction first takes this transaction-scoped advisory lock (released
 * by its COMMIT or ROLLBACK), then reads the version under it. The key is an arbitrary constant
 * that no other part of wagate uses.
 */
const MIGRATION_LOCK_KEY = 0x77616761 // "waga"

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version int4 PRIMARY KEY,
  name text NOT NULL,
  applied_at_ms int8 NOT NULL
)`

async function versionOn(sql: SQL): Promise<number> {
  const [exists] = await sql`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`
  if (!exists.present) return 0
  const [row] = await sql`SELECT COALESCE(MAX(version), 0)::int4 AS version FROM schema_migrations`
  return row.version as number
}

/** The schema version a PostgreSQL database is at (0 for an empty one). Creates nothing. */
export function postgresSchemaVersion(sql: SQL): Promise<number> {
  return versionOn(sql)
}

/**
 * Applies every pending migration, each in its own transaction under the migration lock, and
 * returns the versions this call applied (none when another node got there first). Refuses a
 * database newer than the migrations this binary carries.
 */
export async function migratePostgres(sql: SQL, nowMs: number, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<number[]> {
  const latest = latestPostgresSchemaVersion(migrations)
  const applied: number[] = []
  for (;;) {
    const version = await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}::int8)`
      await tx.unsafe(CREATE_MIGRATIONS_TABLE)
      const current = await versionOn(tx)
      if (current > latest) throw new SchemaTooNewError(current, latest)
      const next = migrations.find((m) => m.version > current)
      if (!next) return null
      await next.up(tx)
      await tx`INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (${next.version}, ${next.name}, ${nowMs}::int8)`
      return next.version
    })
    if (version === null) return applied
    applied.push(version)
  }
}
