import type { Database } from "bun:sqlite"
import type { PhoneRow, StoredPhoneError } from "../phones"

const COLUMNS = `id, account_id AS accountId, phone_number AS phoneNumber, display_name AS displayName,
  connection_status AS connectionStatus, last_connected_at_ms AS lastConnectedAtMs,
  last_disconnected_at_ms AS lastDisconnectedAtMs, created_at_ms AS createdAtMs, updated_at_ms AS updatedAtMs,
  last_error_code AS lastErrorCode, last_error_message AS lastErrorMessage, last_error_at_ms AS lastErrorAtMs,
  offline_watchdog_at_ms AS offlineWatchdogAtMs, wa_version AS waVersion, client_expires_at_ms AS clientExpiresAtMs`

const INSERT_PHONE = `INSERT INTO phones (id, account_id, phone_number, display_name, connection_status, created_at_ms, updated_at_ms)
  VALUES ($id, $accountId, $phoneNumber, $displayName, $connectionStatus, $createdAtMs, $updatedAtMs)`

/** Inserts a phone. */
export function insertPhone(db: Database, row: PhoneRow): void {
  db.query(INSERT_PHONE).run({
    id: row.id,
    accountId: row.accountId,
    phoneNumber: row.phoneNumber,
    displayName: row.displayName,
    connectionStatus: row.connectionStatus,
    createdAtMs: row.createdAtMs,
    updatedAtMs: row.updatedAtMs,
  })
}

const SELECT_BY_REF = `SELECT ${COLUMNS} FROM phones WHERE account_id = ?1 AND (id = ?2 OR phone_number = ?2)`

/** An account's phone by its id or its E.164 number; null when the account has no such phone. */
export function findPhoneByRef(db: Database, accountId: string, ref: string): PhoneRow | null {
  return db.query<PhoneRow, [string, string]>(SELECT_BY_REF).get(accountId, ref)
}

const SELECT_BY_ID = `SELECT ${COLUMNS} FROM phones WHERE id = ?`

/** A phone by id, whatever its account. */
export function findPhone(db: Database, id: string): PhoneRow | null {
  return db.query<PhoneRow, [string]>(SELECT_BY_ID).get(id)
}

const SELECT_BY_NUMBER = `SELECT ${COLUMNS} FROM phones WHERE phone_number = ?`

/** A phone by E.164 number, whatever its account (numbers are unique in an instance). */
export function findPhoneByNumber(db: Database, phoneNumber: string): PhoneRow | null {
  return db.query<PhoneRow, [string]>(SELECT_BY_NUMBER).get(phoneNumber)
}

const SELECT_BY_ACCOUNT = `SELECT ${COLUMNS} FROM phones WHERE account_id = ? ORDER BY created_at_ms, id`

/** Every phone of an account, oldest first. */
export function listPhones(db: Database, accountId: string): PhoneRow[] {
  return db.query<PhoneRow, [string]>(SELECT_BY_ACCOUNT).all(accountId)
}

const DELETE_PHONE = "DELETE FROM phones WHERE id = ?"

/** Removes a phone; its messages stay, still naming its number. */
export function deletePhone(db: Database, id: string): void {
  db.query(DELETE_PHONE).run(id)
}

const UPDATE_CONNECTION = `UPDATE phones SET connection_status = $connectionStatus, last_connected_at_ms = $lastConnectedAtMs,
  last_disconnected_at_ms = $lastDisconnectedAtMs, updated_at_ms = $updatedAtMs, stays_offline = $staysOffline WHERE id = $id`

const UPDATE_LAST_ERROR = `UPDATE phones SET last_error_code = $code, last_error_message = $message, last_error_at_ms = $atMs WHERE id = $id`

/** Records why the phone's last attempt failed, or clears it (null). */
export function updatePhoneLastError(db: Database, id: string, error: StoredPhoneError | null): void {
  db.query(UPDATE_LAST_ERROR).run({ id, code: error?.code ?? null, message: error?.message ?? null, atMs: error?.atMs ?? null })
}

const UPDATE_OFFLINE_WATCHDOG = "UPDATE phones SET offline_watchdog_at_ms = ? WHERE id = ?"

/** Records when the offline-marker watchdog released the phone's held inbound events. */
export function updatePhoneOfflineWatchdog(db: Database, id: string, atMs: number): void {
  db.query(UPDATE_OFFLINE_WATCHDOG).run(atMs, id)
}

/** Records a phone's connection state, and whether it is to stay offline across restarts. */
export function updatePhoneConnection(
  db: Database,
  row: Pick<PhoneRow, "id" | "connectionStatus" | "lastConnectedAtMs" | "lastDisconnectedAtMs" | "updatedAtMs">,
  staysOffline: boolean,
): void {
  db.query(UPDATE_CONNECTION).run({ ...row, staysOffline: staysOffline ? 1 : 0 })
}

// Right-hand sides read the row as it was: an expiry belongs to the version it was announced for.
const UPDATE_WA_VERSION = `UPDATE phones SET client_expires_at_ms = CASE WHEN wa_version IS $waVersion THEN client_expires_at_ms END,
  wa_version = $waVersion WHERE id = $id`

/** Records the version the phone's connect announces; a different one forgets the old one's expiry. */
export function updatePhoneWaVersion(db: Database, id: string, waVersion: string): void {
  db.query(UPDATE_WA_VERSION).run({ id, waVersion })
}

const UPDATE_CLIENT_EXPIRY = "UPDATE phones SET client_expires_at_ms = $expiresAtMs WHERE id = $id AND wa_version IS $waVersion"

/** Records the expiry WhatsApp announced for `waVersion`, if that is still the phone's version. */
export function updatePhoneClientExpiry(db: Database, id: string, waVersion: string, expiresAtMs: number): void {
  db.query(UPDATE_CLIENT_EXPIRY).run({ id, waVersion, expiresAtMs })
}

const SELECT_STAYING_OFFLINE = "SELECT id FROM phones WHERE stays_offline = 1"

/** The phones a start must leave offline. */
export function listPhonesStayingOffline(db: Database): Set<string> {
  return new Set(db.query<{ id: string }, []>(SELECT_STAYING_OFFLINE).all().map((r) => r.id))
}

const SELECT_ALL = `SELECT ${COLUMNS} FROM phones ORDER BY created_at_ms, id`

/** Every phone of the instance (the session manager starts the paired ones at boot). */
export function listAllPhones(db: Database): PhoneRow[] {
  return db.query<PhoneRow, []>(SELECT_ALL).all()
}
