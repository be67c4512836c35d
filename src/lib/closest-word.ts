/**
 * The edit distance between two words where swapping two neighbouring letters counts as one edit
 * (optimal string alignment): `hots` is one edit from `host`, as a typist would count it.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}

/**
 * The candidate a misspelt `word` most likely meant, or null when none is close: the first
 * candidate the word begins (`rate` for `rate-limit`), else the nearest within one edit for a
 * word of up to four letters and a third of its length (two edits at least) for a longer one.
 * Ties go to the earlier candidate.
 */
export function closestWord(word: string, candidates: readonly string[]): string | null {
  const prefixed = word.length >= 3 ? candidates.find((c) => c.startsWith(word)) : undefined
  if (prefixed !== undefined) return prefixed
  const allowed = word.length <= 4 ? 1 : Math.max(2, Math.floor(word.length / 3))
  let best: string | null = null
  let bestDistance = Infinity
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate)
    if (distance <= allowed && distance < candidate.length && distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}
