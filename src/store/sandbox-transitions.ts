import type { Database } from "bun:sqlite"
import type { ReceiptKind } from "../lib/vocabulary"

/** A status change the sandbox will apply to a message at `dueAtMs`. */
export interface SandboxTransitionRow {
  messageId: string
  status: ReceiptKind
  dueAtMs: number
}

const INSERT = "INSERT INTO sandbox_transitions (message_id, status, due_at_ms) VALUES (?1, ?2, ?3)"

/** Records a promised transition (same transaction as the message it belongs to). */
export function insertSandboxTransition(db: Database, row: SandboxTransitionRow): void {
  db.query(INSERT).run(row.messageId, row.status, row.dueAtMs)
}

const TAKE_MANY = `DELETE FROM sandbox_transitions
  WHERE (message_id, status) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))
  RETURNING message_id AS messageId, status, due_at_ms AS dueAtMs`

/** Removes these transitions to apply them; the ones already applied are not returned. Order is not kept. */
export function takeSandboxTransitions(db: Database, keys: readonly { messageId: string; status: string }[]): SandboxTransitionRow[] {
  const param = JSON.stringify(keys.map((k) => [k.messageId, k.status]))
  return db.query<SandboxTransitionRow, [string]>(TAKE_MANY).all(param)
}

const SELECT_ALL = `SELECT message_id AS messageId, status, due_at_ms AS dueAtMs FROM sandbox_transitions
  ORDER BY due_at_ms`

/** Every pending transition, earliest first (loaded at start so none is lost across a restart). */
export function listSandboxTransitions(db: Database): SandboxTransitionRow[] {
  return db.query<SandboxTransitionRow, []>(SELECT_ALL).all()
}
