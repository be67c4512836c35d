/*
 * `wagate export` and `wagate import` move a single-node SQLite install into PostgreSQL
 * (docs/operations.md § "Moving from one node (SQLite)"). The export is a file of its own rather
 * than a direct copy from the SQLite file, so that the old machine and the database need not see
 * each other: the operator copies one file, and the same file is a portable snapshot.
 *
 * The file is NDJSON, one JSON value a line, written and read as a stream:
 *
 *   {"format":"wagate-export","formatVersion":1,"sqliteSchemaVersion":17,…}   the header
 *   {"table":"accounts","columns":[{"name":"id","type":"TEXT"},…]}              each table's columns
 *   ["acc_…","Acme",…]                                                           one row, in column order
 *   {"end":true,"rows":{"accounts":3,…}}                                         the row count of each table
 *
 * BLOB values are base64 strings. The last line lets an import tell a complete file from one cut
 * short. The plan below says, for every SQLite table, where its rows go on PostgreSQL, or why
 * they do not; test/store/transfer-coverage.test.ts fails when a table has no entry.
 */

/** The first line's `format`. */
export const EXPORT_FORMAT = "wagate-export"
/** The layout of the file itself (not the schema of its rows); bumped only if the layout changes. */
export const EXPORT_FORMAT_VERSION = 1

export interface ExportHeader {
  format: typeof EXPORT_FORMAT
  formatVersion: number
  /** The SQLite schema version of the rows (src/store/sqlite/migrations.ts); an import needs its own. */
  sqliteSchemaVersion: number
  wagateVersion: string
  exportedAtMs: number
}

export interface ExportColumn {
  name: string
  /** The column's SQLite type: INTEGER, TEXT, REAL or BLOB. */
  type: string
}

export interface TableStart {
  table: string
  columns: ExportColumn[]
}

export interface ExportEnd {
  end: true
  rows: Record<string, number>
}

/** Values a PostgreSQL column of an imported table takes instead of, or besides, the file's. */
export type FixedValues = Record<string, string | number | boolean | null>

/** Where one SQLite table's rows go. */
export type TablePlan =
  | { table: string; into: string; set?: FixedValues; only?: string; generated?: readonly string[] }
  | { table: string; skip: string }

/*
 * In the order the export writes them and the import loads them: every table after the tables
 * its foreign keys point to.
 */
export const TRANSFER_PLAN: readonly TablePlan[] = [
  { table: "schema_migrations", skip: "the header names the schema version, and PostgreSQL keeps its own migrations" },
  // The node secret never leaves the database it was made in: the cluster makes its own at its first start.
  { table: "settings", into: "settings", only: "key <> 'node_secret'" },
  { table: "accounts", into: "accounts" },
  { table: "api_keys", into: "api_keys" },
  { table: "phones", into: "phones" },
  {
    table: "phone_leases",
    skip: "every imported phone gets its lease row from the phones trigger, held by no node, and the first node to start claims it",
  },
  { table: "nodes", skip: "the nodes of the cluster register themselves when they start" },
  { table: "rate_buckets", skip: "one node keeps its buckets in memory; every key starts with a full bucket" },
  { table: "messages", into: "messages" },
  { table: "message_sequences", skip: "PostgreSQL numbers seq from one sequence per table, which the import moves past the imported numbers" },
  // The sharded counters (src/store/postgres/schema-1.ts) are sums over their shards: shard 0 holds the whole count.
  { table: "message_counts", into: "message_counts", set: { shard: 0 } },
  { table: "message_daily_counts", into: "message_daily_counts", set: { shard: 0 } },
  { table: "api_request_daily_counts", into: "api_request_counts" },
  { table: "message_parts", into: "message_parts" },
  { table: "send_jobs", into: "send_jobs" },
  { table: "message_reactions", into: "message_reactions" },
  { table: "inbound_messages", into: "inbound_messages" },
  { table: "wa_contacts", into: "wa_contacts" },
  { table: "sandbox_groups", into: "sandbox_groups" },
  { table: "group_creations", into: "group_creations" },
  { table: "sandbox_blocks", into: "sandbox_blocks" },
  // Chats, echo/history messages and contacts (src/store/chats.ts): the import sets wagate.importing, so PostgreSQL's triggers leave these rows as they come.
  { table: "chats", into: "chats" },
  { table: "chat_messages", into: "chat_messages" },
  { table: "contacts", into: "contacts" },
  { table: "labels", into: "labels" },
  { table: "inbound_counts", into: "inbound_counts", set: { shard: 0 } },
  { table: "webhook_endpoints", into: "webhook_endpoints" },
  // seq and xid are PostgreSQL's own (src/store/postgres/migration-21-event-streams.ts): their
  // defaults number the imported events in the file's order.
  { table: "events", into: "events", generated: ["seq", "xid"] },
  { table: "event_consumers", into: "event_consumers" },
  // A SQLite rowid means nothing among PostgreSQL's positions: the publisher starts again from
  // the log's beginning, so nothing unpublished is lost (its consumers see duplicates, which
  // at-least-once allows), and no node holds it yet.
  { table: "amqp_publisher", into: "amqp_publisher", set: { position: "0:0", holder: null, lease_expires_at_ms: 0 } },
  // A claim names the SQLite node, which will not come back: the deliveries start unclaimed.
  { table: "webhook_deliveries", into: "webhook_deliveries", set: { claimed_by: null, claim_expires_at_ms: null } },
  { table: "webhook_attempts", into: "webhook_attempts" },
  { table: "wa_creds", into: "wa_creds" },
  { table: "wa_keys", into: "wa_keys" },
  { table: "wa_resend_messages", into: "wa_resend_messages" },
  { table: "wa_message_secrets", into: "wa_message_secrets" },
  { table: "polls", into: "polls" },
  { table: "poll_votes", into: "poll_votes" },
  { table: "poll_pending_votes", into: "poll_pending_votes" },
  { table: "dashboard_sessions", into: "dashboard_sessions" },
  { table: "calls", into: "calls" },
  { table: "call_policies", into: "call_policies" },
  { table: "call_replies", into: "call_replies" },
  { table: "phone_history_settings", into: "phone_history_settings" },
]

/** The plan of a SQLite table, if it has one. */
export function planOf(table: string): TablePlan | undefined {
  return TRANSFER_PLAN.find((p) => p.table === table)
}

/** The PostgreSQL tables an import fills. */
export function importedTables(): string[] {
  return TRANSFER_PLAN.flatMap((p) => ("into" in p ? [p.into] : []))
}

/** The rows of an export (counted by table) that no import loads, with the reason for each table. */
export function leftOutRows(rows: Readonly<Record<string, number>>): { table: string; rows: number; why: string }[] {
  return TRANSFER_PLAN.flatMap((p) => ("skip" in p && (rows[p.table] ?? 0) > 0 ? [{ table: p.table, rows: rows[p.table]!, why: p.skip }] : []))
}

/** An export or an import cannot go on; the message is one sentence saying what to do. */
export class TransferError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "TransferError"
  }
}
