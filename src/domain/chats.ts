import { errors } from "../lib/errors"
import { isE164, isGroupJid, isLidJid } from "../lib/formats"
import type { ChatChange, ChatRow, TimelineEntry } from "../store/chats"
import type { WaMessageRef } from "../whatsapp/gateway"
import type { Principal } from "./api-keys"
import { applyChatChange } from "./chat-events"
import { chatCursor, chatCursorOf, chatView, contactCursor, contactCursorOf, contactView, timelineCursor, timelineCursorOf, timelineView } from "./chat-views"
import type { DomainContext } from "./context"
import type { PhoneLinks } from "./phone-links"
import { resolvePhone } from "./phones"
import { connectedSession, inboundRef, jidOfAddress } from "./wa-targets"

/*
 * Chats, a chat's timeline and contacts (docs/api.md § "Chats and contacts"). Test keys read and
 * change what the sandbox recorded; live keys read what the phone's messages, history and app
 * state recorded, and a change is written to WhatsApp's app state first (so the phone shows it),
 * then to the store with its `chat.updated`.
 */

export interface ChatListCommand {
  fromPhoneId: string
  archived?: boolean
  unread?: boolean
  /** Pinned chats first (the dashboard's inbox, as WhatsApp lists them). */
  pinnedFirst?: boolean
  /** Chats with unread messages first, then the others, each newest activity first. */
  unreadFirst?: boolean
  /** A part of a name, number or LID; at most CHAT_SEARCH_MAX characters. */
  search?: string
  limit: number
  cursor?: string
}

/** The longest chat search: a name or a number fits, a pasted paragraph is refused. */
export const CHAT_SEARCH_MAX = 100

export interface TimelineCommand {
  fromPhoneId: string
  before?: string
  limit: number
}

export interface ChatPatch {
  fromPhoneId: string
  archived?: boolean
  pinned?: boolean
  /** ISO 8601, or null to unmute. */
  mutedUntil?: string | null
  unread?: boolean
}

export interface ContactListCommand {
  fromPhoneId: string
  search?: string
  limit: number
  cursor?: string
}

/** A chat id as the API names one: E.164, a `…@lid` JID or a group JID; anything else is 400. */
export function requireChatId(chatId: string): void {
  if (!isE164(chatId) && !isLidJid(chatId) && !isGroupJid(chatId)) throw errors.validation(["chatId must be an E.164 number, a …@lid JID or a group JID"])
}

/** The WhatsApp message a timeline entry is, as archive and read marks name the chat's newest one. */
function refOf(entry: TimelineEntry, chatId: string): WaMessageRef | null {
  if (entry.kind === "received") return inboundRef(entry.row)
  if (entry.kind === "chat") {
    const author = entry.row.direction === "in" && isGroupJid(chatId) ? { authorJid: jidOfAddress(entry.row.fromAddress) } : {}
    return { chatJid: jidOfAddress(chatId), waMessageId: entry.row.waMessageId, fromMe: entry.row.direction === "out", ...author }
  }
  return null
}

/** The change a PATCH asks for, in the store's words; 400 when it names nothing. */
function changeOf(patch: ChatPatch): ChatChange {
  const change: ChatChange = {}
  if (patch.archived !== undefined) change.archived = patch.archived
  if (patch.pinned !== undefined) change.pinned = patch.pinned
  if (patch.mutedUntil !== undefined) change.mutedUntilMs = patch.mutedUntil === null ? null : Date.parse(patch.mutedUntil)
  if (patch.unread !== undefined) change.unread = patch.unread
  if (Object.keys(change).length === 0) throw errors.validation(["Name at least one of archived, pinned, mutedUntil, unread"])
  return change
}

export function createChats(deps: { ctx: DomainContext; links: PhoneLinks }) {
  const { ctx, links } = deps

  async function chatOf(principal: Principal, fromPhoneId: string, chatId: string): Promise<ChatRow> {
    requireChatId(chatId)
    const phone = await resolvePhone(ctx, principal.accountId, fromPhoneId)
    const chat = await ctx.store.findChat(phone.id, principal.env, chatId)
    if (!chat) throw errors.chatNotFound(chatId)
    return chat
  }

  /** Writes the change to WhatsApp's app state; 502 when WhatsApp (or the phone's missing app-state keys) refuses it. */
  async function writeToWhatsApp(chat: ChatRow, change: ChatChange): Promise<void> {
    const session = await connectedSession(ctx, links, chat.phoneId)
    const [newest] = await ctx.store.listTimeline({ phoneId: chat.phoneId, env: chat.env, chatId: chat.chatId, before: null, limit: 1 })
    let last: { ref: WaMessageRef; atMs: number } | null = null
    if (newest?.kind === "api") {
      const [part] = await ctx.store.listParts(newest.row.id)
      if (part) last = { ref: { chatJid: jidOfAddress(chat.chatId), waMessageId: part.waMessageId, fromMe: true }, atMs: newest.atMs }
    } else if (newest) {
      const ref = refOf(newest, chat.chatId)
      if (ref) last = { ref, atMs: newest.atMs }
    }
    try {
      await session.modifyChat(jidOfAddress(chat.chatId), change, last)
    } catch (err) {
      ctx.logger.warn("writing a chat change to WhatsApp's app state failed; the chat was left as it was", { phoneId: chat.phoneId, chatId: chat.chatId, err })
      throw errors.chatChangeUnwritten(chat.chatId, err)
    }
  }

  return {
    async list(principal: Principal, cmd: ChatListCommand) {
      const phone = await resolvePhone(ctx, principal.accountId, cmd.fromPhoneId)
      const order = { pinnedFirst: cmd.pinnedFirst === true, unreadFirst: cmd.unreadFirst === true }
      const after = chatCursorOf(cmd.cursor, order)
      const search = cmd.search?.trim() || undefined
      if (search && [...search].length > CHAT_SEARCH_MAX) throw errors.validation([`search must be at most ${CHAT_SEARCH_MAX} characters`])
      const rows = await ctx.store.listChats({ phoneId: phone.id, env: principal.env, archived: cmd.archived, unread: cmd.unread, ...order, search, after, limit: cmd.limit + 1 })
      const page = rows.slice(0, cmd.limit)
      return { chats: page.map(chatView), nextCursor: rows.length > cmd.limit ? chatCursor(page.at(-1)!, order) : null }
    },

    /** One chat of the phone (404 when it has none under this id in the key's environment). */
    async chat(principal: Principal, fromPhoneId: string, chatId: string) {
      return chatView(await chatOf(principal, fromPhoneId, chatId))
    },

    async timeline(principal: Principal, chatId: string, cmd: TimelineCommand) {
      const chat = await chatOf(principal, cmd.fromPhoneId, chatId)
      const before = timelineCursorOf(cmd.before)
      // A `…@lid` the phone maps to a number answers with the number's chat, which holds both (docs/api.md).
      const entries = await ctx.store.listTimeline({ phoneId: chat.phoneId, env: chat.env, chatId: chat.chatId, before, limit: cmd.limit + 1 })
      const page = entries.slice(0, cmd.limit)
      const reactions = await ctx.store.listReactionsFor(page.map((e) => e.row.id))
      return { messages: page.map((e) => timelineView(e, reactions)), nextCursor: entries.length > cmd.limit ? timelineCursor(page.at(-1)!) : null }
    },

    async update(principal: Principal, chatId: string, patch: ChatPatch) {
      const change = changeOf(patch)
      const chat = await chatOf(principal, patch.fromPhoneId, chatId)
      if (principal.env === "live") await writeToWhatsApp(chat, change)
      const input = { accountId: principal.accountId, env: principal.env, phoneId: chat.phoneId, chatId: chat.chatId, change, atMs: ctx.clock.nowMs() }
      return chatView(await ctx.store.write(async (q, tx) => await applyChatChange(ctx, q, tx, input)))
    },

    /** The phone's WhatsApp Business labels in the key's environment (a live phone's from its app state). */
    async labels(principal: Principal, fromPhoneId: string) {
      const phone = await resolvePhone(ctx, principal.accountId, fromPhoneId)
      const rows = await ctx.store.listLabels(phone.id, principal.env)
      return { labels: rows.map((r) => ({ id: r.labelId, name: r.name, color: r.color })) }
    },

    async contacts(principal: Principal, cmd: ContactListCommand) {
      const phone = await resolvePhone(ctx, principal.accountId, cmd.fromPhoneId)
      const afterContactId = contactCursorOf(cmd.cursor)
      const search = cmd.search?.trim() || undefined
      const rows = await ctx.store.listContacts({ phoneId: phone.id, env: principal.env, search, afterContactId, limit: cmd.limit + 1 })
      const page = rows.slice(0, cmd.limit)
      // A sandbox phone's blocks are its block list (docs/api.md § "Blocking"); a live phone's come with the contact.
      const sandboxBlocked = principal.env === "test" ? new Set((await ctx.store.listSandboxBlocks(phone.id)).map((b) => b.contact)) : null
      const contacts = page.map((row) => contactView(row, sandboxBlocked ? sandboxBlocked.has(row.contactId) : row.blocked))
      return { contacts, nextCursor: rows.length > cmd.limit ? contactCursor(page.at(-1)!) : null }
    },
  }
}

export type Chats = ReturnType<typeof createChats>
