import type { chatView } from "../../../domain/chat-views"
import { CHAT_SEARCH_MAX } from "../../../domain/chats"
import { href, type Scope } from "../scope"
import { excerpt } from "./parts"

/*
 * The Chats page's left pane (docs/dashboard.md § "Chats"): a phone's chats, newest activity
 * first, as WhatsApp's own inbox lists them. Names and previews are text strangers chose: they
 * are rendered as text only.
 */

export type ChatView = ReturnType<typeof chatView>

/** Which chats the list shows: all active ones, only unread ones, or the archive. */
export type ChatFilter = "all" | "unread" | "archived"

/** How many chats the list shows at first, and how many more each "More chats" adds. */
export const LIST_STEP = 50
/** The most chats one list shows (a "More chats" past it is not offered; the search finds the rest). */
export const LIST_MAX = 1000

/** What the list and its links keep: the phone, the filter, the order, the search and how many chats are shown. */
export interface InboxState {
  phoneId: string
  filter: ChatFilter
  /** Chats with unread messages first ("Unread first"), else newest activity first; pinned ones on top either way. */
  unreadFirst: boolean
  search: string
  /** How many chats the list shows (LIST_STEP more per "More chats"). */
  shown: number
  /** The open chat, null when none is. */
  chatId: string | null
}

/** The inbox's address with some of its state changed (the scope kept). */
export function inboxHref(scope: Pick<Scope, "account" | "env">, state: InboxState, change: Partial<InboxState> = {}, suffix = ""): string {
  const s = { ...state, ...change }
  return href(`/dashboard/phones/${encodeURIComponent(s.phoneId)}/chats${suffix}`, scope, {
    filter: s.filter === "all" ? null : s.filter,
    order: s.unreadFirst ? "unread" : null,
    q: s.search,
    shown: s.shown > LIST_STEP ? String(s.shown) : null,
    chat: s.chatId,
  })
}

/** How a chat is named: its name, else its number or JID. */
export function chatTitle(chat: Pick<ChatView, "id" | "name">): string {
  return chat.name?.trim() || chat.id
}

/** The avatar's letter: the name's first letter, or "#" for a number. */
export function initialOf(title: string): string {
  const first = [...title.trim()][0] ?? "#"
  return /[\p{L}]/u.test(first) ? first.toUpperCase() : "#"
}

const DAY_MS = 86_400_000
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

/** A time as WhatsApp's list shows it: the hour today, "Yesterday", the weekday within a week, else the date. */
export function shortTime(iso: string, nowMs: number): string {
  const days = Math.floor(nowMs / DAY_MS) - Math.floor(Date.parse(iso) / DAY_MS)
  if (days <= 0) return iso.slice(11, 16)
  if (days === 1) return "Yesterday"
  if (days < 7) return WEEKDAYS[new Date(iso).getUTCDay()]!
  return iso.slice(0, 10)
}

function ChatItem(props: { chat: ChatView; scope: Pick<Scope, "account" | "env">; state: InboxState; nowMs: number }) {
  const { chat, state } = props
  const title = chatTitle(chat)
  const last = chat.lastMessage
  const muted = chat.mutedUntil !== null && Date.parse(chat.mutedUntil) > props.nowMs
  return (
    <li class={`chat-item${chat.id === state.chatId ? " open" : ""}${chat.unreadCount > 0 ? " unread" : ""}`}>
      <a href={inboxHref(props.scope, state, { chatId: chat.id })} aria-current={chat.id === state.chatId ? "true" : undefined}>
        <span class="avatar" aria-hidden="true">
          {initialOf(title)}
        </span>
        <span class="chat-main">
          <span class="chat-top">
            <span class="chat-name">{title}</span>
            {last ? <time datetime={last.at}>{shortTime(last.at, props.nowMs)}</time> : null}
          </span>
          <span class="chat-bottom">
            <span class="chat-preview">{last ? `${last.direction === "out" ? "You: " : ""}${last.type === "revoked" ? "This message was deleted" : excerpt(last.preview || `[${last.type}]`, 90)}` : ""}</span>
            {chat.pinned ? <span class="mark tag">Pinned</span> : null}
            {muted ? <span class="mark tag">Muted</span> : null}
            {chat.archived ? <span class="mark tag">Archived</span> : null}
            {chat.unreadCount > 0 ? <span class="badge-unread" aria-label={`${chat.unreadCount} unread`}>{String(chat.unreadCount)}</span> : null}
          </span>
        </span>
      </a>
    </li>
  )
}

/** The list itself (the part that refreshes); `more` when the store holds more chats than are shown. */
export function ChatItems(props: { chats: ChatView[]; more: boolean; scope: Pick<Scope, "account" | "env">; state: InboxState; nowMs: number }) {
  const { state } = props
  if (props.chats.length === 0) return <p class="muted pad">{state.search ? "No chat matches this search." : state.filter === "all" ? "No chats yet." : "No chats here."}</p>
  return (
    <>
      <ul class="chat-items">
        {props.chats.map((chat) => (
          <ChatItem chat={chat} scope={props.scope} state={state} nowMs={props.nowMs} />
        ))}
      </ul>
      {props.more && state.shown < LIST_MAX ? (
        <p class="chat-more">
          <a href={inboxHref(props.scope, state, { shown: state.shown + LIST_STEP })}>More chats</a>
        </p>
      ) : null}
    </>
  )
}

/** The search box and the filter links above the list. */
export function ChatListHead(props: { scope: Pick<Scope, "account" | "env">; state: InboxState }) {
  const { scope, state } = props
  const filters: [ChatFilter, string][] = [
    ["all", "All"],
    ["unread", "Unread"],
    ["archived", "Archived"],
  ]
  return (
    <div class="chat-head">
      <form method="get" action={`/dashboard/phones/${encodeURIComponent(state.phoneId)}/chats`} class="chat-search" role="search">
        {scope.account ? <input type="hidden" name="account" value={scope.account.id} /> : null}
        <input type="hidden" name="env" value={scope.env} />
        {state.filter === "all" ? null : <input type="hidden" name="filter" value={state.filter} />}
        {state.unreadFirst ? <input type="hidden" name="order" value="unread" /> : null}
        <label for="chat-search" class="visually-hidden">
          Search chats
        </label>
        <input id="chat-search" name="q" type="search" placeholder="Search name or number" value={state.search} maxlength={CHAT_SEARCH_MAX} autocomplete="off" />
      </form>
      <nav aria-label="Chat filter" class="chat-filters">
        {filters.map(([filter, label]) => (
          <a href={inboxHref(scope, state, { filter, chatId: null, shown: LIST_STEP })} aria-current={state.filter === filter ? "true" : undefined}>
            {label}
          </a>
        ))}
        <a class="chat-order" role="switch" aria-checked={state.unreadFirst ? "true" : "false"} href={inboxHref(scope, state, { unreadFirst: !state.unreadFirst, shown: LIST_STEP })}>
          Unread first
        </a>
      </nav>
    </div>
  )
}
