import { boundedOutsideTextOrNull } from "../lib/outside-text"
import type { HistorySync } from "../lib/vocabulary"
import type { ChatMessageRow, ContactUpsert } from "../store/chats"
import type { PhoneRow } from "../store/phones"
import type { StoreQueries } from "../store/store"
import type { HistoryChunk, HistoryMessage } from "../whatsapp/gateway"
import type { DomainContext } from "./context"
import { historySyncedData } from "./history-events"
import { DEFAULT_HISTORY_DAYS, DEFAULT_HISTORY_SYNC } from "./history-settings"
import { timelineDetails } from "./echo-messages"
import { messageIdForWaId } from "./inbound-actions"

/*
 * History on pairing (docs/admin.md § "History on pairing"): each chunk the adapter read is stored
 * as it lands, in writes of HISTORY_BATCH_ROWS messages, and told as one `history.synced`. Messages
 * older than the phone's `historyDays` are dropped; what the phone sent is `out` from its own
 * number, the rest `in` from its sender; the store skips a WhatsApp id the phone already holds (in
 * any table), so a re-sync stores nothing twice. The past is never `message.received`.
 */

/** Messages per write: one chunk (about a thousand messages) takes a few short transactions. */
export const HISTORY_BATCH_ROWS = 500
const DAY_MS = 86_400_000

/**
 * Whether a chunk ends the sync: the recent part at 100 %, or the full part at 100 % (a `full`
 * phone gets both, in that order). A chunk that could not be read never does.
 */
export function chunkCompletes(chunk: Pick<HistoryChunk, "kind" | "progress" | "failed">): boolean {
  return !chunk.failed && (chunk.kind === "recent" || chunk.kind === "full") && (chunk.progress ?? 0) >= 100
}

/** The rows of a chunk's messages within `historyDays` of now, without replies resolved. */
export function historyRows(input: { phone: PhoneRow; messages: readonly HistoryMessage[]; historyDays: number; nowMs: number; newId: () => string }): ChatMessageRow[] {
  const oldest = input.nowMs - input.historyDays * DAY_MS
  const rows: ChatMessageRow[] = []
  for (const m of input.messages) {
    if (m.atMs < oldest) continue
    const details = m.details ?? {}
    rows.push({
      id: input.newId(),
      accountId: input.phone.accountId,
      env: "live",
      phoneId: input.phone.id,
      waMessageId: m.waMessageId,
      chatId: m.chatId,
      origin: "history",
      direction: m.fromMe ? "out" : "in",
      fromAddress: m.fromMe ? input.phone.phoneNumber : (m.from ?? m.chatId),
      type: m.type,
      content: m.content,
      ...timelineDetails(details),
      replyToId: null,
      status: m.fromMe ? "sent" : null,
      editedAtMs: null,
      revokedAtMs: null,
      atMs: m.atMs,
      createdAtMs: input.nowMs,
    })
  }
  return rows
}

/** The chunk's contacts as the store merges them: number, LID and push name (bounded). */
export function historyContacts(phoneId: string, chunk: Pick<HistoryChunk, "contacts">, nowMs: number): ContactUpsert[] {
  return chunk.contacts.map((c) => ({
    phoneId,
    env: "live" as const,
    contactId: c.contact,
    phoneNumber: c.phoneNumber,
    lid: c.lid,
    ...(c.pushName ? { pushName: boundedOutsideTextOrNull(c.pushName) } : {}),
    updatedAtMs: nowMs,
  }))
}

/** Points each reply at the message it quotes: one the phone already holds, else one of this chunk. */
async function resolveReplies(q: StoreQueries, phoneId: string, batch: ChatMessageRow[], quoted: ReadonlyMap<string, string>, inChunk: ReadonlyMap<string, string>): Promise<void> {
  for (const row of batch) {
    const waId = quoted.get(row.waMessageId)
    if (waId) row.replyToId = (await messageIdForWaId(q, phoneId, waId, null)) ?? inChunk.get(waId) ?? null
  }
}

/** Stores one chunk and records its `history.synced`; returns how many messages it stored (none for a phone set to `none`, or gone). */
export async function recordHistoryChunk(ctx: DomainContext, phoneId: string, chunk: HistoryChunk): Promise<number> {
  const phone = await ctx.store.findPhone(phoneId)
  const settings = await ctx.store.findHistorySettings(phoneId)
  const mode: HistorySync = settings?.historySync ?? DEFAULT_HISTORY_SYNC
  if (!phone || mode === "none") return 0
  const nowMs = ctx.clock.nowMs()
  const rows = historyRows({ phone, messages: chunk.messages, historyDays: settings?.historyDays ?? DEFAULT_HISTORY_DAYS, nowMs, newId: () => ctx.ids.newId("wamsg") })
  const quoted = new Map(chunk.messages.flatMap((m) => (m.details?.quotedWaMessageId ? [[m.waMessageId, m.details.quotedWaMessageId] as const] : [])))
  const inChunk = new Map(rows.map((r) => [r.waMessageId, r.id]))
  let stored = 0
  const chats = new Set<string>()
  for (let start = 0; start < rows.length; start += HISTORY_BATCH_ROWS) {
    const batch = rows.slice(start, start + HISTORY_BATCH_ROWS)
    stored += await ctx.store.write(async (q) => {
      await resolveReplies(q, phoneId, batch, quoted, inChunk)
      return q.recordHistoryBatch(batch)
    })
    for (const row of batch) chats.add(row.chatId)
  }
  const contacts = historyContacts(phoneId, chunk, nowMs)
  await ctx.store.write(async (q, tx) => {
    if (contacts.length > 0) await q.upsertContacts(contacts)
    const data = historySyncedData(phoneId, { chats: chats.size, messages: stored }, chunkCompletes(chunk))
    await ctx.events.record(q, tx, { accountId: phone.accountId, env: "live", type: "history.synced", data, occurredAtMs: nowMs })
  })
  return stored
}
