import type { SQL } from "bun"
import type { SendJobRow } from "../send-jobs"
import type { SendJobsQueries } from "../store"
import { mapRows, toNumber } from "./rows"

const INSERT = "INSERT INTO send_jobs (message_id, phone_id, created_at_ms) VALUES ($1, $2, $3)"
const SELECT_BY_PHONE = "SELECT message_id, phone_id, created_at_ms FROM send_jobs WHERE phone_id = $1 ORDER BY created_at_ms, message_id"
const SELECT_PHONES = "SELECT DISTINCT phone_id FROM send_jobs ORDER BY phone_id"

/** src/store/sqlite/send-jobs.ts on PostgreSQL. */
export function pgSendJobsQueries(sql: SQL): SendJobsQueries {
  return {
    async insertSendJob(row) {
      await sql.unsafe(INSERT, [row.messageId, row.phoneId, row.createdAtMs])
    },
    async deleteSendJob(messageId) {
      await sql.unsafe("DELETE FROM send_jobs WHERE message_id = $1", [messageId])
    },
    async listSendJobs(phoneId) {
      const rows = await sql.unsafe<{ message_id: string; phone_id: string; created_at_ms: string }[]>(SELECT_BY_PHONE, [phoneId])
      return mapRows(rows, (r): SendJobRow => ({ messageId: r.message_id, phoneId: r.phone_id, createdAtMs: toNumber(r.created_at_ms) }))
    },
    async listPhonesWithJobs() {
      return mapRows(await sql.unsafe<{ phone_id: string }[]>(SELECT_PHONES), (r) => r.phone_id)
    },
  }
}
