import type { proto } from "@whiskeysockets/baileys"
import { createGarbagePacer, type GarbagePacer } from "../../lib/garbage-pacer"
import type { HistoryChunk, HistoryChunkKind, HistoryContact, HistoryMessage } from "../gateway"
import { mapDetails, type DetailsContentLike } from "./inbound-details"
import { readHistoryChunk, type HistoryDownloadDeps } from "./history-download"
import { e164FromPnJid, isGroupJid, isIgnoredJid, isLidJid, isPnJid, mapContent, normalizeUserJid, secondsToMs, senderAddress, unwrapContent, type PnForLid, type UpsertLike } from "./mapping"

/*
 * History on pairing, in the adapter (docs/admin.md § "History on pairing"). The phone announces
 * each chunk with a HISTORY_SYNC_NOTIFICATION protocol message from our own account (Baileys
 * 7.0.0-rc14 lib/Utils/process-message.js drops one that is not `fromMe`; so does this). Baileys is
 * told to process only the notifications that need no download (session.ts,
 * `shouldSyncHistoryMessage`), so it keeps its own bookkeeping for the inline bootstrap and never
 * fetches a blob; every chunk is read here, one at a time, mapped to wagate's words and handed to
 * the listener, whose promise is awaited before the next chunk is read: a history of any length
 * costs one chunk of memory.
 *
 * Numbers and LIDs: a chunk names them in `phoneNumberToLidMappings` and per chat (`pnJid`,
 * `lidJid`); those resolve first, then Baileys' LID store, and they are stored there too (as
 * Baileys does for the chunks it processes), so later live messages resolve as well.
 */

const SYNC_KINDS: Record<number, HistoryChunkKind> = { 0: "bootstrap", 1: "other", 2: "full", 3: "recent", 4: "push_names", 5: "other", 6: "other" }

export interface HistoryIngestDeps extends HistoryDownloadDeps {
  lidMapping: {
    getPNForLID(lid: string): Promise<string | null>
    storeLIDPNMappings(pairs: { lid: string; pn: string }[]): Promise<unknown>
  }
  nowMs(): number
  report(chunk: HistoryChunk): Promise<void>
  /** Collects the chunks' garbage when RSS rose too far (default: the media stages' pacer, lib/garbage-pacer.ts). */
  pacer?: GarbagePacer
  warn(message: string, fields: Record<string, unknown>): void
}

/**
 * Baileys' `shouldSyncHistoryMessage`: true only for a notification that needs no download (the
 * inline bootstrap, and the blank one Baileys asks about at login to decide whether to wait for
 * history). Baileys then ends its initial-sync wait on the bootstrap and syncs app state as it
 * would (lib/Socket/chats.js, AwaitingInitialSync), but never fetches a blob itself.
 */
export function baileysReadsHistory(notification: proto.Message.IHistorySyncNotification): boolean {
  return !notification.directPath
}

export type HistoryIngest = ReturnType<typeof createHistoryIngest>

/** The HISTORY_SYNC_NOTIFICATIONs of an upsert (only our own account's). */
export function historyNotificationsOf(upsert: UpsertLike): proto.Message.IHistorySyncNotification[] {
  const out: proto.Message.IHistorySyncNotification[] = []
  for (const msg of upsert.messages) {
    const notification = (msg.message as proto.IMessage | null | undefined)?.protocolMessage?.historySyncNotification
    if (notification && msg.key?.fromMe) out.push(notification)
  }
  return out
}

/** The number ↔ LID pairs a chunk tells, as `lid → pn` JIDs. */
function mappingsOf(sync: proto.IHistorySync): Map<string, string> {
  const pairs = new Map<string, string>()
  for (const m of sync.phoneNumberToLidMappings ?? []) if (isLidJid(m.lidJid) && isPnJid(m.pnJid)) pairs.set(normalizeUserJid(m.lidJid), normalizeUserJid(m.pnJid))
  for (const c of sync.conversations ?? []) {
    if (isLidJid(c.id) && isPnJid(c.pnJid)) pairs.set(normalizeUserJid(c.id), normalizeUserJid(c.pnJid))
    if (isPnJid(c.id) && isLidJid(c.lidJid)) pairs.set(normalizeUserJid(c.lidJid), normalizeUserJid(c.id))
  }
  return pairs
}

/** One past message in wagate's words, or null when it is no user content (stubs, protocol messages). */
async function mapHistoryMessage(info: proto.IWebMessageInfo, pnForLid: PnForLid, nowMs: number): Promise<HistoryMessage | null> {
  const key = info.key
  // Only conversations wagate keeps: a contact (by number or LID) or a group; never status or newsletters.
  if (!key?.id || isIgnoredJid(key.remoteJid) || !(isPnJid(key.remoteJid) || isLidJid(key.remoteJid) || isGroupJid(key.remoteJid))) return null
  const mapped = mapContent(info.message)
  if (!mapped) return null
  const isGroup = isGroupJid(key.remoteJid)
  const participant = key.participant ?? info.participant ?? undefined
  const chatId = isGroup ? key.remoteJid : await senderAddress({ remoteJid: key.remoteJid }, pnForLid)
  if (!chatId) return null
  const fromMe = key.fromMe === true
  const from = fromMe ? null : await senderAddress({ remoteJid: key.remoteJid, participant }, pnForLid)
  if (!fromMe && !from) return null
  const details = mapDetails(unwrapContent(info.message) as DetailsContentLike, { remoteJid: key.remoteJid, id: key.id, participant })
  const atMs = secondsToMs(info.messageTimestamp as number | null | undefined) ?? nowMs
  return { waMessageId: key.id, chatId, isGroup, fromMe, from, type: mapped.type, content: mapped.content, atMs, details }
}

/** Everyone the chunk names: the mappings, the push names, and each received message's sender. */
function contactsOf(sync: proto.IHistorySync, pairs: Map<string, string>, senders: Map<string, string>): HistoryContact[] {
  const lidOf = new Map([...pairs].map(([lid, pn]) => [pn, lid]))
  const byKey = new Map<string, HistoryContact>()
  const add = (jid: string, pushName: string | null) => {
    const lid = isLidJid(jid) ? normalizeUserJid(jid) : (lidOf.get(normalizeUserJid(jid)) ?? null)
    const pn = isPnJid(jid) ? normalizeUserJid(jid) : lid ? (pairs.get(lid) ?? null) : null
    if (!lid && !pn) return
    const contact = pn ? e164FromPnJid(pn) : lid!
    const known = byKey.get(contact)
    byKey.set(contact, { contact, phoneNumber: pn ? e164FromPnJid(pn) : null, lid, pushName: pushName || known?.pushName || null })
  }
  for (const [lid] of pairs) add(lid, null)
  for (const p of sync.pushnames ?? []) if (p.id) add(p.id, p.pushname ?? null)
  for (const [jid, name] of senders) add(jid, name)
  return [...byKey.values()]
}

/** A decoded chunk in wagate's words. */
export async function mapHistoryChunk(sync: proto.IHistorySync, pnForLid: PnForLid, nowMs: number): Promise<HistoryChunk> {
  const pairs = mappingsOf(sync)
  const resolve: PnForLid = async (lid) => pairs.get(normalizeUserJid(lid)) ?? (await pnForLid(lid))
  const messages: HistoryMessage[] = []
  const senders = new Map<string, string>()
  for (const conversation of sync.conversations ?? []) {
    for (const item of conversation.messages ?? []) {
      const info = item.message
      if (!info) continue
      const message = await mapHistoryMessage(info, resolve, nowMs)
      if (message) messages.push(message)
      const sender = info.key?.fromMe ? null : (info.key?.participant ?? info.participant ?? info.key?.remoteJid)
      if (sender && info.pushName && !isGroupJid(sender)) senders.set(sender, info.pushName)
    }
  }
  const kind = SYNC_KINDS[sync.syncType ?? 0] ?? "other"
  return { kind, progress: sync.progress ?? null, messages, contacts: contactsOf(sync, pairs, senders), failed: false }
}

/** Reads the announced chunks one after another and reports each; a chunk that cannot be read is reported `failed`. */
export function createHistoryIngest(deps: HistoryIngestDeps): { onUpsert(upsert: UpsertLike): void; idle(): Promise<void> } {
  let chain: Promise<void> = Promise.resolve()
  // A chunk's inflated buffer and decoded messages are garbage once it is stored; Bun is slow to
  // count discarded buffers toward a collection (lib/garbage-pacer.ts), so a history of fifty
  // chunks would raise RSS by several of them without the pacer.
  let pacer = deps.pacer
  const ingest = async (notification: proto.Message.IHistorySyncNotification): Promise<void> => {
    const kind = SYNC_KINDS[notification.syncType ?? 0] ?? "other"
    let chunk: HistoryChunk
    try {
      const { sync, bytes } = await readHistoryChunk(deps, notification)
      pacer ??= createGarbagePacer()
      pacer.passed(bytes)
      const pairs = [...mappingsOf(sync)].map(([lid, pn]) => ({ lid, pn }))
      if (pairs.length > 0) await deps.lidMapping.storeLIDPNMappings(pairs).catch(() => undefined)
      chunk = await mapHistoryChunk(sync, (lid) => deps.lidMapping.getPNForLID(lid), deps.nowMs())
    } catch (err) {
      deps.warn(`a history chunk could not be read (${err instanceof Error ? err.message : String(err)}); what landed before it is kept`, { kind, chunkOrder: notification.chunkOrder ?? 0 })
      chunk = { kind, progress: notification.progress ?? null, messages: [], contacts: [], failed: true }
    }
    await deps.report(chunk)
  }
  return {
    onUpsert(upsert) {
      for (const notification of historyNotificationsOf(upsert)) {
        chain = chain.then(() => ingest(notification)).catch((err) => deps.warn("storing a history chunk failed", { err }))
      }
    },
    idle: () => chain,
  }
}
