import { EVENT_TYPES } from "./vocabulary"

/*
 * Which events a subscription takes, for webhook endpoints and event streams alike
 * (docs/webhooks.md § "Streams"): `*` takes every event, `group.*` every event of one group of
 * names, anything else the event of that exact name.
 */

/** Every `group.*` that takes some event, in the catalogue's order of first appearance. */
export const EVENT_GROUPS: readonly string[] = [...new Set(EVENT_TYPES.filter((t) => t.includes(".")).map((t) => `${t.slice(0, t.indexOf("."))}.*`))]

/** Whether an event named `type` is one that `filter` takes. */
export function eventMatches(filter: readonly string[], type: string): boolean {
  for (const name of filter) {
    if (name === "*" || name === type) return true
    if (name.endsWith(".*") && type.startsWith(name.slice(0, -1))) return true
  }
  return false
}

/** The first name of `filter` that takes no event wagate emits, or null when each takes one. */
export function unknownEventFilter(filter: readonly string[]): string | null {
  return filter.find((name) => !EVENT_TYPES.some((type) => eventMatches([name], type))) ?? null
}
