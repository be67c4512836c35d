/**
 * Every event wagate emits (spec, Events): the outbox's vocabulary. Each one's data schema and
 * builder are in the event catalogue (src/domain/event-catalogue.ts).
 */
export const EVENT_TYPES = [
  "message.sent",
  "message.delivered",
  "message.read",
  "message.failed",
  "message.received",
  "phone.connected",
  "phone.disconnected",
] as const
export type EventType = (typeof EVENT_TYPES)[number]
