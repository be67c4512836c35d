import type { SQL, TransactionSQL } from "bun"

/*
 * Row conversions shared by the PostgreSQL query groups. Bun returns int8 (every *_ms column,
 * seq, SUM and COUNT) as strings so that no value loses precision; wagate's values are epoch
 * milliseconds and counts, far below 2^53, so they become JS numbers here, as SQLite returns them.
 */

/** An int8 value as a number. */
export function toNumber(value: unknown): number {
  return typeof value === "number" ? value : Number(value)
}

/** A nullable int8 value as a number or null. */
export function toNumberOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : toNumber(value)
}

/** A bytea value as a plain Uint8Array, as bun:sqlite returns a BLOB (Bun gives a Buffer). */
export function toBytes(value: Uint8Array): Uint8Array {
  return new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
}

/** The rows of a result as a plain array (Bun's result array carries extra fields). */
export function mapRows<R, T>(rows: readonly R[], fn: (row: R) => T): T[] {
  return Array.from(rows, fn)
}

/**
 * Runs `fn` atomically on `sql`: in a savepoint when `sql` is already a transaction (so a failure
 * undoes only `fn`'s statements, as a nested SQLite transaction does), else in a transaction.
 */
export function atomically<T>(sql: SQL, fn: (tx: SQL) => Promise<T>): Promise<T> {
  const tx = sql as Partial<TransactionSQL>
  if (typeof tx.savepoint === "function") return tx.savepoint(fn) as Promise<T>
  return sql.begin(fn) as Promise<T>
}
