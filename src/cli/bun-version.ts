/*
 * wagate relies on Bun behaviour of the version package.json's `engines.bun` names. The compiled
 * executable carries the Bun it was built with; from a checkout, an older Bun on the machine
 * would fail later in ways that do not name the cause, so serve checks first.
 */

/** [major, minor, patch] of a version such as `1.4.5` or `1.4.5-canary.3`; null if it is not one. */
function parseVersion(text: string): [number, number, number] | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim())
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null
}

/** The lowest version an `engines` range of the form `>=X.Y.Z` accepts. */
export function minimumVersion(range: string): string | null {
  const m = /^>=\s*(v?\d+\.\d+\.\d+)$/.exec(range.trim())
  return m ? m[1]! : null
}

/** Whether `actual` is at least `minimum` (both `X.Y.Z`; anything unparseable counts as too old). */
export function isAtLeast(actual: string, minimum: string): boolean {
  const a = parseVersion(actual)
  const b = parseVersion(minimum)
  if (!a || !b) return false
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]!
  return true
}

/** The one sentence to refuse a too-old Bun with, or null when `actual` satisfies `range`. */
export function bunTooOld(range: string, actual: string): string | null {
  const minimum = minimumVersion(range)
  if (minimum === null || isAtLeast(actual, minimum)) return null
  return `wagate needs Bun >= ${minimum}; this is Bun ${actual}: upgrade with \`bun upgrade\``
}
