import { boundedOutsideText } from "../lib/outside-text"
import type { ChatChange, ChatRow } from "../store/chats"
import type { AddressBookContact, PhoneChatChange, PhoneChatLabel, PhoneLabel, SessionEvents } from "../whatsapp/gateway"
import { applyChatChange } from "./chat-events"
import type { DomainContext } from "./context"

/*
 * What the phone's owner changes in WhatsApp's app state (docs/api.md § "Chats and contacts"):
 * a chat archived, pinned, muted or marked read or unread on the phone updates the live chat and
 * emits `chat.updated` once, naming only what really changed (app state is replayed on every
 * resync, so most of what arrives is already known and emits nothing); address-book names fill
 * the contacts' `name`.
 */

const UNKNOWN_CHAT = { archived: false, pinned: false, mutedUntilMs: null, unreadCount: 0 } as const

/** The part of `change` that differs from the chat as stored (a chat not known yet: WhatsApp's defaults). */
export function realChange(chat: Pick<ChatRow, "archived" | "pinned" | "mutedUntilMs" | "unreadCount"> | null, change: ChatChange): ChatChange {
  const now = chat ?? UNKNOWN_CHAT
  const real: ChatChange = {}
  if (change.archived !== undefined && change.archived !== now.archived) real.archived = change.archived
  if (change.pinned !== undefined && change.pinned !== now.pinned) real.pinned = change.pinned
  if (change.mutedUntilMs !== undefined && change.mutedUntilMs !== now.mutedUntilMs) real.mutedUntilMs = change.mutedUntilMs
  if (change.unread !== undefined && change.unread !== now.unreadCount > 0) real.unread = change.unread
  return real
}

export async function recordPhoneChatChange(ctx: DomainContext, phoneId: string, seen: PhoneChatChange): Promise<void> {
  const phone = await ctx.store.findPhone(phoneId)
  if (!phone) return
  await ctx.store.write(async (q, tx) => {
    const change = realChange(await q.findChat(phoneId, "live", seen.chat), seen.change)
    if (Object.keys(change).length === 0) return
    await applyChatChange(ctx, q, tx, { accountId: phone.accountId, env: "live", phoneId, chatId: seen.chat, change, atMs: seen.atMs })
  })
}

/** The chat's labels after the phone put one on or took it off; null when that changes nothing. */
export function labelsAfter(current: readonly string[], labelId: string, labeled: boolean): string[] | null {
  if (current.includes(labelId) === labeled) return null
  return labeled ? [...current, labelId] : current.filter((id) => id !== labelId)
}

export async function recordPhoneChatLabel(ctx: DomainContext, phoneId: string, seen: PhoneChatLabel): Promise<void> {
  const phone = await ctx.store.findPhone(phoneId)
  if (!phone) return
  await ctx.store.write(async (q, tx) => {
    const labels = labelsAfter((await q.findChat(phoneId, "live", seen.chat))?.labels ?? [], seen.labelId, seen.labeled)
    if (labels === null) return
    await applyChatChange(ctx, q, tx, { accountId: phone.accountId, env: "live", phoneId, chatId: seen.chat, change: { labels }, atMs: seen.atMs })
  })
}

export async function recordPhoneLabel(ctx: DomainContext, phoneId: string, seen: PhoneLabel): Promise<void> {
  const row = { phoneId, env: "live" as const, labelId: seen.labelId, name: boundedOutsideText(seen.name), color: seen.color, deleted: seen.deleted, updatedAtMs: seen.atMs }
  await ctx.store.write(async (q) => await q.upsertLabel(row))
}

export async function recordAddressBook(ctx: DomainContext, phoneId: string, contacts: readonly AddressBookContact[]): Promise<void> {
  const atMs = ctx.clock.nowMs()
  const rows = contacts.map((c) => ({ phoneId, env: "live" as const, contactId: c.contact, phoneNumber: c.phoneNumber, lid: c.lid, name: boundedOutsideText(c.name), updatedAtMs: atMs }))
  await ctx.store.write(async (q) => await q.upsertContacts(rows))
}

/** The session callbacks for the phone's app state. */
export function phoneAppStateEvents(ctx: DomainContext, phoneId: string): Pick<SessionEvents, "chatChangedOnPhone" | "addressBook" | "chatLabelledOnPhone" | "labelEditedOnPhone"> {
  return {
    chatChangedOnPhone: (seen) =>
      void recordPhoneChatChange(ctx, phoneId, seen).catch((err) => ctx.logger.error("recording a chat change from the phone failed", { phoneId, err })),
    chatLabelledOnPhone: (seen) =>
      void recordPhoneChatLabel(ctx, phoneId, seen).catch((err) => ctx.logger.error("recording a chat label from the phone failed", { phoneId, err })),
    labelEditedOnPhone: (seen) =>
      void recordPhoneLabel(ctx, phoneId, seen).catch((err) => ctx.logger.error("recording a label from the phone failed", { phoneId, err })),
    addressBook: (contacts) =>
      void recordAddressBook(ctx, phoneId, contacts).catch((err) => ctx.logger.error("recording the phone's address book failed", { phoneId, err })),
  }
}
