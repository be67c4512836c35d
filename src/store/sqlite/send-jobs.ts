import type { Database } from "bun:sqlite"
import type { SendJobRow } from "../send-jobs"

const INSERT = "INSERT INTO send_jobs (message_id, phone_id, created_at_ms) VALUES ($messageId, $phoneId, $createdAtMs)"

/** Queues a job (same transaction as its message). */
export function insertSendJob(db: Database, row: SendJobRow): void {
  db.query(INSERT).run({ ...row })
}

const DELETE = "DELETE FROM send_jobs WHERE message_id = ?"

/** Ends a job: its message left `pending`. */
export function deleteSendJob(db: Database, messageId: string): void {
  db.query(DELETE).run(messageId)
}

const SELECT_BY_PHONE = `SELECT message_id AS messageId, phone_id AS phoneId, created_at_ms AS createdAtMs FROM send_jobs
  WHERE phone_id = ? ORDER BY created_at_ms, message_id`

/** A phone's jobs, oldest first (the order they are sent in). */
export function listSendJobs(db: Database, phoneId: string): SendJobRow[] {
  return db.query<SendJobRow, [string]>(SELECT_BY_PHONE).all(phoneId)
}

const SELECT_PHONES = "SELECT DISTINCT phone_id AS phoneId FROM send_jobs"

/** The phones that have jobs waiting (read at start). */
export function listPhonesWithJobs(db: Database): string[] {
  return db.query<{ phoneId: string }, []>(SELECT_PHONES).all().map((r) => r.phoneId)
}
