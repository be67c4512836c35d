import { Type } from "@sinclair/typebox"
import { named, Nullable, Timestamp } from "../lib/schema"
import { toIso, toIsoOrNull } from "../lib/time"
import type { Environment } from "../lib/vocabulary"
import type { ChatChange } from "../store/chats"
import type { StoreQueries, WriteTx } from "../store/store"
import type { DomainContext } from "./context"

/*
 * `chat.updated` (docs/webhooks.md § "Chat events"): a chat was archived, pinned, muted, marked
 * read or unread, labelled or renamed, through `PATCH /v1/chats/{chatId}` or on the phone (app
 * state). `changes` names only what changed.
 */

export const ChatChanges = named(
  "ChatChanges",
  Type.Object(
    {
      archived: Type.Optional(Type.Boolean()),
      pinned: Type.Optional(Type.Boolean()),
      mutedUntil: Type.Optional(Nullable(Timestamp)),
      unread: Type.Optional(Type.Boolean({ description: "false: the chat was marked read; true: marked unread." })),
      labels: Type.Optional(Type.Array(Type.String(), { description: "The chat's label ids, as a whole." })),
      name: Type.Optional(Nullable(Type.String())),
    },
    { additionalProperties: false },
  ),
)

export const ChatUpdatedData = named(
  "ChatUpdatedEventData",
  Type.Object(
    {
      phoneId: Type.String({ examples: ["ph_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
      chatId: Type.String({ description: "E.164, a `…@lid` JID or a group JID.", examples: ["+14155550199"] }),
      changes: ChatChanges,
      at: Timestamp,
    },
    { description: "A chat was archived, pinned, muted, marked read or unread, labelled or renamed; `changes` names only what changed." },
  ),
)

/** The catalogue's entry for chat changes (event-catalogue.ts composes every area's). */
export const CHAT_EVENT_ENTRIES = {
  "chat.updated": { data: ChatUpdatedData, firesWhen: "A chat was archived, pinned, muted, marked read or unread, labelled or renamed (through the API or on the phone)." },
} as const

/** The event's `changes`: the API's names, times as ISO. */
export function chatChangesView(change: ChatChange): typeof ChatChanges.static {
  const view: typeof ChatChanges.static = {}
  if (change.archived !== undefined) view.archived = change.archived
  if (change.pinned !== undefined) view.pinned = change.pinned
  if (change.mutedUntilMs !== undefined) view.mutedUntil = toIsoOrNull(change.mutedUntilMs)
  if (change.unread !== undefined) view.unread = change.unread
  if (change.labels !== undefined) view.labels = change.labels
  if (change.name !== undefined) view.name = change.name
  return view
}

export interface ChatChangeInput {
  accountId: string
  env: Environment
  phoneId: string
  chatId: string
  change: ChatChange
  atMs: number
}

/**
 * Applies a chat change and records its `chat.updated` in the caller's transaction: the API's
 * PATCH, and the app-state sync of a live phone (the adapters call this with the phone's changes).
 */
export async function applyChatChange(ctx: Pick<DomainContext, "events">, q: StoreQueries, tx: WriteTx, input: ChatChangeInput) {
  const chat = await q.applyChatChange(input.phoneId, input.env, input.chatId, input.change, input.atMs)
  const data = { phoneId: input.phoneId, chatId: chat.chatId, changes: chatChangesView(input.change), at: toIso(input.atMs) }
  await ctx.events.record(q, tx, { accountId: input.accountId, env: input.env, type: "chat.updated", data, occurredAtMs: input.atMs })
  return chat
}
