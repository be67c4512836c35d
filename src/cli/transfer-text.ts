import { leftOutRows } from "../store/transfer"

function rowsWord(n: number): string {
  return `${n} ${n === 1 ? "row" : "rows"}`
}

/**
 * Why `wagate import` loads fewer rows than `wagate export` wrote: the tables it leaves out,
 * each with its rows and the reason (TRANSFER_PLAN in src/store/transfer.ts). `lead` starts the
 * sentence, ending before the number; empty when nothing is left out.
 */
export function leftOutText(rows: Readonly<Record<string, number>>, lead: string): string {
  const left = leftOutRows(rows)
  if (left.length === 0) return ""
  const total = left.reduce((sum, t) => sum + t.rows, 0)
  return `${lead} ${rowsWord(total)} of tables PostgreSQL rebuilds itself:\n${left.map((t) => `  ${t.table} (${rowsWord(t.rows)}): ${t.why}\n`).join("")}`
}
