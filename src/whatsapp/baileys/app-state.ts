import type { BaileysEventMap, WASocket } from "@whiskeysockets/baileys"
import type { AddressBookContact, ChatModification, PhoneChatChange, PhoneChatLabel, PhoneLabel } from "../gateway"
import type { BaileysModule } from "./auth-state"
import { contactOf } from "./contacts"
import { isGroupJid, isIgnoredJid, isLidJid, isPnJid, normalizeUserJid } from "./mapping"

/*
 * What the phone's owner changes in WhatsApp's app state, read from Baileys 7.0.0-rc14
 * (lib/Utils/chat-utils.js processSyncAction, lib/Utils/sync-action-utils.js
 * processContactAction): `chats.update` carries archive (boolean), pin (a timestamp, null when
 * unpinned), mute (`muteEndTime` in ms, -1 for ever, null when unmuted) and read marks
 * (`unreadCount` 0 read, -1 marked unread); `contacts.upsert` carries address-book names.
 * Baileys syncs app state by itself only while it processes a history notification
 * (lib/Socket/chats.js), so the key share (`creds.update` with `myAppStateKeyId`) starts a resync
 * of every collection; `isInitialSync` false, else Baileys reports chat changes only for chats
 * it learned from history.
 */

type Sock = Pick<WASocket, "ev" | "resyncAppState" | "signalRepository">
type ChatUpdate = BaileysEventMap["chats.update"][number]
type ContactEntry = BaileysEventMap["contacts.upsert"][number]

/** "Muted for ever" as the API writes it: the last millisecond of year 9999 (WhatsApp says -1). */
export const MUTED_FOREVER_MS = Date.parse("9999-12-31T23:59:59.999Z")

/** The app-state fields of one `chats.update`, in the port's words; null when it names none (message counts, timestamps). */
export function chatModificationOf(update: Partial<ChatUpdate>): ChatModification | null {
  const change: ChatModification = {}
  if (typeof update.archived === "boolean") change.archived = update.archived
  if ("pinned" in update && update.pinned !== undefined) change.pinned = update.pinned !== null && Number(update.pinned) > 0
  if ("muteEndTime" in update && update.muteEndTime !== undefined) {
    const end = update.muteEndTime === null ? null : Number(update.muteEndTime)
    change.mutedUntilMs = end === null ? null : end < 0 ? MUTED_FOREVER_MS : end
  }
  // A positive count is Baileys counting messages, not a read mark.
  if (update.unreadCount === 0) change.unread = false
  if (update.unreadCount === -1) change.unread = true
  return Object.keys(change).length > 0 ? change : null
}

/** One address-book entry in the port's words; null without a name or a user JID. */
export async function addressBookEntryOf(sock: Pick<Sock, "signalRepository">, entry: Partial<ContactEntry>): Promise<AddressBookContact | null> {
  const name = entry.name?.trim()
  const id = entry.id ? normalizeUserJid(entry.id) : ""
  if (!name || !(isPnJid(id) || isLidJid(id))) return null
  const pnJid = isPnJid(id) ? id : entry.phoneNumber && isPnJid(entry.phoneNumber) ? normalizeUserJid(entry.phoneNumber) : null
  const lid = isLidJid(id) ? id : entry.lid && isLidJid(entry.lid) ? normalizeUserJid(entry.lid) : null
  const contact = pnJid ? await contactOf(sock, pnJid) : await contactOf(sock, lid!)
  return { contact, phoneNumber: contact.startsWith("+") ? contact : null, lid, name }
}

async function chatOf(sock: Pick<Sock, "signalRepository">, jid: string): Promise<string | null> {
  if (isIgnoredJid(jid)) return null
  if (isGroupJid(jid)) return jid
  const user = normalizeUserJid(jid)
  return isPnJid(user) || isLidJid(user) ? await contactOf(sock, user) : null
}

export interface AppStateListener {
  chatChanged(change: PhoneChatChange): void
  addressBook(contacts: AddressBookContact[]): void
  chatLabelled(change: PhoneChatLabel): void
  labelEdited(label: PhoneLabel): void
  /** True when a chat label is the echo of one this session wrote (labels.ts OwnLabelEchoes): the domain recorded it already. */
  isOwnChatLabel?(chatJid: string, labelId: string, labeled: boolean): boolean
  failed(what: string, err: unknown): void
}

/**
 * The handler of one socket's app-state events, for the session's `ev.process` batches: tells
 * them in arrival order, and starts the resync at the key share.
 */
export function appStateHandler(sock: Sock, baileys: Pick<BaileysModule, "ALL_WA_PATCH_NAMES">, nowMs: () => number, listener: AppStateListener): (events: Partial<BaileysEventMap>) => void {
  let chain: Promise<void> = Promise.resolve()
  const tell = (work: () => Promise<void>, what: string) => {
    chain = chain.then(work).catch((err) => listener.failed(what, err))
  }
  return (events) => {
    if (events["creds.update"]?.myAppStateKeyId) {
      sock.resyncAppState(baileys.ALL_WA_PATCH_NAMES, false).catch((err) => listener.failed("syncing WhatsApp's app state after the key share", err))
    }
    const updates = events["chats.update"]
    if (updates) {
      tell(async () => {
        for (const update of updates) {
          const change = chatModificationOf(update)
          const chat = change && update.id ? await chatOf(sock, update.id) : null
          if (change && chat) listener.chatChanged({ chat, change, atMs: nowMs() })
        }
      }, "mapping a chat change from the phone")
    }
    const label = events["labels.edit"]
    if (label) {
      tell(async () => {
        listener.labelEdited({ labelId: label.id, name: label.name ?? "", color: Number(label.color ?? 0), deleted: !!label.deleted, atMs: nowMs() })
      }, "mapping a label from the phone")
    }
    const labelled = events["labels.association"]
    // Labels on single messages (label_message) are not part of the API.
    if (labelled && labelled.association.type === "label_jid" && !listener.isOwnChatLabel?.(labelled.association.chatId, labelled.association.labelId, labelled.type === "add")) {
      const { type, association } = labelled
      tell(async () => {
        const chat = await chatOf(sock, association.chatId)
        if (chat) listener.chatLabelled({ chat, labelId: association.labelId, labeled: type === "add", atMs: nowMs() })
      }, "mapping a chat label from the phone")
    }
    const entries = events["contacts.upsert"]
    if (entries) {
      tell(async () => {
        const contacts = (await Promise.all(entries.map((e) => addressBookEntryOf(sock, e)))).filter((c): c is AddressBookContact => c !== null)
        if (contacts.length > 0) listener.addressBook(contacts)
      }, "mapping the phone's address book")
    }
  }
}
