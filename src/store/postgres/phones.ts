import type { SQL } from "bun"
import type { PhoneRow } from "../phones"
import type { PhonesQueries } from "../store"
import { mapRows, toNumber, toNumberOrNull } from "./rows"

const COLUMNS = `id, account_id, phone_number, display_name, connection_status, last_connected_at_ms, last_disconnected_at_ms,
  created_at_ms, updated_at_ms, last_error_code, last_error_message, last_error_at_ms, offline_watchdog_at_ms, wa_version, client_expires_at_ms`

interface RawPhone {
  id: string
  account_id: string
  phone_number: string
  display_name: string
  connection_status: PhoneRow["connectionStatus"]
  last_connected_at_ms: string | null
  last_disconnected_at_ms: string | null
  created_at_ms: string
  updated_at_ms: string
  last_error_code: string | null
  last_error_message: string | null
  last_error_at_ms: string | null
  offline_watchdog_at_ms: string | null
  wa_version: string | null
  client_expires_at_ms: string | null
}

function fromRaw(r: RawPhone): PhoneRow {
  return {
    id: r.id,
    accountId: r.account_id,
    phoneNumber: r.phone_number,
    displayName: r.display_name,
    connectionStatus: r.connection_status,
    lastConnectedAtMs: toNumberOrNull(r.last_connected_at_ms),
    lastDisconnectedAtMs: toNumberOrNull(r.last_disconnected_at_ms),
    createdAtMs: toNumber(r.created_at_ms),
    updatedAtMs: toNumber(r.updated_at_ms),
    lastErrorCode: r.last_error_code,
    lastErrorMessage: r.last_error_message,
    lastErrorAtMs: toNumberOrNull(r.last_error_at_ms),
    offlineWatchdogAtMs: toNumberOrNull(r.offline_watchdog_at_ms),
    waVersion: r.wa_version,
    clientExpiresAtMs: toNumberOrNull(r.client_expires_at_ms),
  }
}

const INSERT_PHONE = `INSERT INTO phones (id, account_id, phone_number, display_name, connection_status, created_at_ms, updated_at_ms)
  VALUES ($1, $2, $3, $4, $5, $6, $7)`
const SELECT_BY_REF = `SELECT ${COLUMNS} FROM phones WHERE account_id = $1 AND (id = $2 OR phone_number = $2)`
const SELECT_BY_ID = `SELECT ${COLUMNS} FROM phones WHERE id = $1`
const SELECT_BY_NUMBER = `SELECT ${COLUMNS} FROM phones WHERE phone_number = $1`
const SELECT_BY_ACCOUNT = `SELECT ${COLUMNS} FROM phones WHERE account_id = $1 ORDER BY created_at_ms, id`
const SELECT_ALL = `SELECT ${COLUMNS} FROM phones ORDER BY created_at_ms, id`
const UPDATE_CONNECTION = `UPDATE phones SET connection_status = $2, last_connected_at_ms = $3, last_disconnected_at_ms = $4,
  updated_at_ms = $5, stays_offline = $6 WHERE id = $1`
// Right-hand sides read the row as it was: an expiry belongs to the version it was announced for.
const UPDATE_WA_VERSION = `UPDATE phones SET client_expires_at_ms = CASE WHEN wa_version IS NOT DISTINCT FROM $2 THEN client_expires_at_ms END,
  wa_version = $2 WHERE id = $1`
const UPDATE_CLIENT_EXPIRY = "UPDATE phones SET client_expires_at_ms = $3 WHERE id = $1 AND wa_version IS NOT DISTINCT FROM $2"
const UPDATE_LAST_ERROR = "UPDATE phones SET last_error_code = $2, last_error_message = $3, last_error_at_ms = $4 WHERE id = $1"

/** src/store/sqlite/phones.ts on PostgreSQL. */
export function pgPhonesQueries(sql: SQL): PhonesQueries {
  const one = async (text: string, params: unknown[]) => {
    const [row] = await sql.unsafe<RawPhone[]>(text, params)
    return row ? fromRaw(row) : null
  }
  return {
    async insertPhone(row) {
      await sql.unsafe(INSERT_PHONE, [row.id, row.accountId, row.phoneNumber, row.displayName, row.connectionStatus, row.createdAtMs, row.updatedAtMs])
    },
    findPhoneByRef: (accountId, ref) => one(SELECT_BY_REF, [accountId, ref]),
    findPhone: (id) => one(SELECT_BY_ID, [id]),
    findPhoneByNumber: (phoneNumber) => one(SELECT_BY_NUMBER, [phoneNumber]),
    async listPhones(accountId) {
      return mapRows(await sql.unsafe<RawPhone[]>(SELECT_BY_ACCOUNT, [accountId]), fromRaw)
    },
    async deletePhone(id) {
      await sql.unsafe("DELETE FROM phones WHERE id = $1", [id])
    },
    async updatePhoneLastError(id, error) {
      await sql.unsafe(UPDATE_LAST_ERROR, [id, error?.code ?? null, error?.message ?? null, error?.atMs ?? null])
    },
    async updatePhoneOfflineWatchdog(id, atMs) {
      await sql.unsafe("UPDATE phones SET offline_watchdog_at_ms = $2 WHERE id = $1", [id, atMs])
    },
    async updatePhoneWaVersion(id, waVersion) {
      await sql.unsafe(UPDATE_WA_VERSION, [id, waVersion])
    },
    async updatePhoneClientExpiry(id, waVersion, expiresAtMs) {
      await sql.unsafe(UPDATE_CLIENT_EXPIRY, [id, waVersion, expiresAtMs])
    },
    async updatePhoneConnection(row, staysOffline) {
      await sql.unsafe(UPDATE_CONNECTION, [row.id, row.connectionStatus, row.lastConnectedAtMs, row.lastDisconnectedAtMs, row.updatedAtMs, staysOffline])
    },
    async listPhonesStayingOffline() {
      return new Set(mapRows(await sql.unsafe<{ id: string }[]>("SELECT id FROM phones WHERE stays_offline"), (r) => r.id))
    },
    async listAllPhones() {
      return mapRows(await sql.unsafe<RawPhone[]>(SELECT_ALL), fromRaw)
    },
  }
}
