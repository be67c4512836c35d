/*
 * Bun's PostgreSQL client returns int8 columns (every *_ms, seq, SUM) as strings, so that no
 * value past 2^53 loses digits. wagate's int8 values are epoch milliseconds, sequence numbers and
 * counts, far below that, and the seam promises JS numbers as SQLite gives them.
 */

/** An int8 column as a number. */
export const int8 = (value: string | number | bigint): number => Number(value)

/** A nullable int8 column as a number or null. */
export const int8OrNull = (value: string | number | bigint | null): number | null => (value === null ? null : Number(value))
