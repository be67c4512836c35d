import type { Database } from "bun:sqlite"

const MESSAGES_BY_STATUS = `SELECT env, status, SUM(n) AS n FROM message_counts GROUP BY env, status`

/** Outbound messages by environment and status, from the counters. */
export function messagesByEnvAndStatus(db: Database): { env: string; status: string; n: number }[] {
  return db.query<{ env: string; status: string; n: number }, []>(MESSAGES_BY_STATUS).all()
}

const PHONES_BY_STATUS = "SELECT connection_status AS status, COUNT(*) AS n FROM phones GROUP BY connection_status"

/** Phones by connection status (a handful of rows). */
export function phonesByStatus(db: Database): { status: string; n: number }[] {
  return db.query<{ status: string; n: number }, []>(PHONES_BY_STATUS).all()
}

const DELIVERIES_PENDING = "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'"

/** Webhook deliveries still to attempt (uses the partial index on pending rows). */
export function pendingDeliveries(db: Database): number {
  return db.query<{ n: number }, []>(DELIVERIES_PENDING).get()!.n
}
