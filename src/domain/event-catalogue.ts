import type { Static, TSchema } from "@sinclair/typebox"
import type { EventType } from "../lib/vocabulary"
import { CALL_EVENT_ENTRIES } from "./call-events"
import { CHAT_EVENT_ENTRIES } from "./chat-events"
import { ECHO_EVENT_ENTRIES } from "./echo-messages"
import { GROUP_EVENT_ENTRIES } from "./group-events"
import { HISTORY_EVENT_ENTRIES } from "./history-events"
import { INBOUND_EVENT_ENTRIES } from "./inbound-events"
import { MESSAGE_STATUS_EVENT_ENTRIES } from "./message-event-data"
import { PHONE_EVENT_ENTRIES } from "./phone-events"
import { POLL_EVENT_ENTRIES } from "./poll-rules"
import { REACTION_EVENT_ENTRIES } from "./reaction-event"

/*
 * The webhook event catalogue: for each event, the schema of its `data` and when it fires. Each
 * area's module declares its events' schemas, its entries and the one function that builds their
 * data; this module composes them. Every emitter calls its area's builder, the OpenAPI document
 * publishes the schemas under `webhooks`, and the admin API accepts exactly these names
 * (docs/webhooks.md). The `satisfies` below fails the build when an event name of
 * src/lib/vocabulary.ts has no entry, or an entry names no event.
 */

/** Each event's data schema and when it fires, by area. */
export const EVENT_CATALOGUE = {
  ...MESSAGE_STATUS_EVENT_ENTRIES,
  ...INBOUND_EVENT_ENTRIES,
  ...REACTION_EVENT_ENTRIES,
  ...PHONE_EVENT_ENTRIES,
  ...POLL_EVENT_ENTRIES,
  ...CALL_EVENT_ENTRIES,
  ...GROUP_EVENT_ENTRIES,
  ...ECHO_EVENT_ENTRIES,
  ...CHAT_EVENT_ENTRIES,
  ...HISTORY_EVENT_ENTRIES,
} as const satisfies Record<EventType, { data: TSchema; firesWhen: string }>

/** Every event name, in catalogue order. */
export const EVENT_NAMES = Object.keys(EVENT_CATALOGUE) as EventType[]

/** The data of one event, as its schema types it. */
export type EventData<E extends EventType> = Static<(typeof EVENT_CATALOGUE)[E]["data"]>
