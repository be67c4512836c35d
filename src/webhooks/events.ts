import { EVENT_TYPES, type EventType } from "../lib/vocabulary"

/** True when `value` names an event wagate emits. */

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value)
}
