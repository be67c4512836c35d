/**
 * A duration as an operator reads it in a list (`wagate nodes`, the dashboard's Nodes page):
 * the two largest units, rounded down, so "2.1 s", "4 min 05 s", "3 h 12 min", "2 d 4 h".
 * Seconds keep one decimal below a minute, because a heartbeat 0.4 s ago and one 4.9 s ago
 * tell different stories against a 15 s lease.
 */
export function formatAge(ms: number): string {
  const totalMs = Math.max(0, Math.floor(ms))
  if (totalMs < 60_000) return `${(Math.floor(totalMs / 100) / 10).toFixed(1)} s`
  const totalS = Math.floor(totalMs / 1000)
  if (totalS < 3600) return `${Math.floor(totalS / 60)} min ${pad(totalS % 60)} s`
  const totalMin = Math.floor(totalS / 60)
  if (totalMin < 24 * 60) return `${Math.floor(totalMin / 60)} h ${pad(totalMin % 60)} min`
  const totalH = Math.floor(totalMin / 60)
  return `${Math.floor(totalH / 24)} d ${totalH % 24} h`
}

function pad(n: number): string {
  return String(n).padStart(2, "0")
}
