import type { Database } from "bun:sqlite"
import type { SandboxBlockRow } from "../sandbox-blocks"

/* The sandbox's block lists (src/store/sandbox-blocks.ts): one row per phone and blocked contact. */

const COLUMNS = "phone_id AS phoneId, contact, blocked_at_ms AS blockedAtMs"

/** Blocks (a new row; blocking again keeps the first time) or unblocks (removes the row). */
export function setSandboxBlock(db: Database, phoneId: string, contact: string, blocked: boolean, atMs: number): void {
  if (blocked) db.query("INSERT INTO sandbox_blocks (phone_id, contact, blocked_at_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING").run(phoneId, contact, atMs)
  else db.query("DELETE FROM sandbox_blocks WHERE phone_id = ? AND contact = ?").run(phoneId, contact)
}

/** A phone's sandbox block list, oldest block first. */
export function listSandboxBlocks(db: Database, phoneId: string): SandboxBlockRow[] {
  return db.query<SandboxBlockRow, [string]>(`SELECT ${COLUMNS} FROM sandbox_blocks WHERE phone_id = ? ORDER BY blocked_at_ms, contact`).all(phoneId)
}
