import { Type } from "@sinclair/typebox"
import { named } from "../lib/schema"

/*
 * `history.synced` (docs/webhooks.md § "History events"): a chunk of the phone's past landed, as
 * history sync on pairing brings it (docs/admin.md § "History on pairing").
 */

export const HistorySyncedData = named(
  "HistorySyncedEventData",
  Type.Object(
    {
      phoneId: Type.String({ examples: ["ph_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
      chats: Type.Integer({ minimum: 0, description: "How many chats this chunk brought messages for (within `historyDays`).", examples: [42] }),
      messages: Type.Integer({ minimum: 0, description: "How many messages this chunk stored; one the phone already had is not counted again.", examples: [1000] }),
      complete: Type.Boolean({
        description: "True when this chunk ends the sync (WhatsApp's recent part, or for `full` its full part, at 100 %); false while more is to come, and on the last event of a sync WhatsApp broke off.",
      }),
    },
    { description: "A chunk of the phone's history landed and is stored; the past is never told as `message.received`." },
  ),
)

/** The catalogue's entry (event-catalogue.ts spreads it in). */
export const HISTORY_EVENT_ENTRIES = {
  "history.synced": { data: HistorySyncedData, firesWhen: "A chunk of a live phone's history (history sync on pairing) was stored." },
} as const

/** The event's data. */
export function historySyncedData(phoneId: string, counts: { chats: number; messages: number }, complete: boolean): typeof HistorySyncedData.static {
  return { phoneId, chats: counts.chats, messages: counts.messages, complete }
}
