import type { VNode } from "preact"
import type { Principal } from "../../../domain/api-keys"
import { chatMediaFile } from "../../../domain/chat-media"
import { listPhones, resolvePhone } from "../../../domain/phones"
import { errors } from "../../../lib/errors"
import type { ApiKeyRow } from "../../../store/api-keys"
import type { PhoneRow } from "../../../store/phones"
import { attachmentResponse } from "../attachment"
import type { DashboardApp } from "../base"
import { page, type Dashboard, type PageContext } from "../context"
import { fragmentResponse, htmlResponse, redirect, renderFragment, SECURITY_HEADERS } from "../respond"
import { href, type Scope } from "../scope"
import { CHAT_SEARCH_MAX } from "../../../domain/chats"
import { ChatItems, ChatListHead, chatTitle, initialOf, inboxHref, LIST_MAX, LIST_STEP, type ChatView, type InboxState } from "../views/chat-list"
import { Bubbles, previewOf, type TimelineView } from "../views/chat-thread"
import { ChatHeader, ReplyBox } from "../views/chat-reply"
import { Layout } from "../views/layout"
import { ErrorList } from "../views/parts"
import { errorPage } from "./errors"
import { sendingKeys } from "./inbound-message"

/*
 * A phone's inbox (docs/dashboard.md § "Chats"): the chat list on the left, the open chat on the
 * right (one pane at a time on a narrow screen), on the same chats domain as `GET /v1/chats` and
 * `GET /v1/chats/{chatId}/messages`. Both panes refresh themselves: htmx asks for the pane every
 * few seconds with the fingerprint of what it shows, and the server answers 204 (no swap) while
 * nothing changed, so a quiet inbox costs one small query per pane.
 */

/** Messages per timeline page. */
const TIMELINE_PAGE = 60
/** How often the open panes ask for news. */
export const POLL_EVERY = "every 3s"

export interface Inbox {
  phone: PhoneRow
  scope: Scope
  operator: Principal
  state: InboxState
}

/** The phone of the URL, in the scope's account (another account's phone is a 404), and the inbox's state from the query. */
export async function inboxOf(c: PageContext, chatId?: string | null): Promise<Inbox> {
  const account = c.scope.account
  if (!account) throw errors.phoneNotFound(c.params.phoneId!)
  const phone = await resolvePhone(c.dash.deps.ctx, account.id, c.params.phoneId!)
  // The chats domain reads only the account and environment of who asks; the operator signed in
  // with the admin token may read what any key of the account may.
  const operator: Principal = { keyId: "dashboard", accountId: account.id, env: c.scope.env, scopes: [], account }
  const q = c.url.searchParams
  const filter = (["unread", "archived"] as const).find((f) => f === q.get("filter")) ?? "all"
  // A longer search than a name or number is cut, not refused: the box keeps to it anyway (maxlength).
  const search = [...(q.get("q") ?? "").trim()].slice(0, CHAT_SEARCH_MAX).join("")
  const asked = Number.parseInt(q.get("shown") ?? "", 10)
  const shown = Number.isSafeInteger(asked) ? Math.min(Math.max(Math.ceil(asked / LIST_STEP) * LIST_STEP, LIST_STEP), LIST_MAX) : LIST_STEP
  const state: InboxState = { phoneId: phone.id, filter, unreadFirst: q.get("order") === "unread", search, shown, chatId: chatId !== undefined ? chatId : q.get("chat") || null }
  return { phone, scope: c.scope, operator, state }
}

/**
 * The chats the list shows, read by the store in the list's order (pinned first, unread first when
 * asked) with the filter and the search in the query, `shown` of them at most.
 */
async function chatsOf(c: PageContext, inbox: Inbox): Promise<{ chats: ChatView[]; more: boolean }> {
  const { filter, unreadFirst, search, shown } = inbox.state
  const which = filter === "archived" ? { archived: true } : { archived: false, ...(filter === "unread" ? { unread: true } : {}) }
  const page = await c.dash.deps.chats.list(inbox.operator, { fromPhoneId: inbox.phone.id, ...which, pinnedFirst: true, unreadFirst, search: search || undefined, limit: shown })
  return { chats: page.chats, more: page.nextCursor !== null }
}

async function timelineOf(c: PageContext, inbox: Inbox, chatId: string) {
  const before = c.url.searchParams.get("before") || undefined
  return await c.dash.deps.chats.timeline(inbox.operator, chatId, { fromPhoneId: inbox.phone.id, before, limit: TIMELINE_PAGE })
}

/**
 * A pane that refreshes itself: it asks `url` (with `v`, the fingerprint of what it shows) every
 * few seconds and is replaced only when the answer differs. It sits inside its scroller, so a
 * swap keeps the reader's scroll position.
 */
function Polled(props: { id: string; url: string | null; children: VNode }) {
  const version = Bun.hash(renderFragment(props.children)).toString(36)
  if (!props.url) return <div id={props.id}>{props.children}</div>
  const sep = props.url.includes("?") ? "&" : "?"
  return (
    <div id={props.id} hx-get={`${props.url}${sep}v=${version}`} hx-trigger={POLL_EVERY} hx-swap="outerHTML">
      {props.children}
    </div>
  )
}

/** The answer to a pane's poll: 204 while its fingerprint is unchanged, else the new pane. */
function pollAnswer(c: PageContext, pane: VNode): Response {
  const inner = (pane.props as { children: VNode }).children
  if (c.url.searchParams.get("v") === Bun.hash(renderFragment(inner)).toString(36)) return new Response(null, { status: 204, headers: { ...SECURITY_HEADERS, "Cache-Control": "no-store" } })
  return fragmentResponse(pane)
}

function listPane(c: PageContext, inbox: Inbox, list: { chats: ChatView[]; more: boolean }): VNode {
  const items = <ChatItems chats={list.chats} more={list.more} scope={inbox.scope} state={inbox.state} nowMs={c.dash.deps.ctx.clock.nowMs()} />
  return <Polled id="chat-items" url={inboxHref(inbox.scope, inbox.state, {}, "/live/list")} children={items} />
}

function timelinePane(c: PageContext, inbox: Inbox, timeline: { messages: TimelineView[]; nextCursor: string | null }): VNode {
  const before = c.url.searchParams.get("before")
  const olderHref = timeline.nextCursor ? `${inboxHref(inbox.scope, inbox.state)}&before=${encodeURIComponent(timeline.nextCursor)}` : null
  const reactAction = inboxHref(inbox.scope, inbox.state, {}, "/react")
  const bubbles = <Bubbles messages={timeline.messages} olderHref={olderHref} scope={inbox.scope} state={inbox.state} csrfToken={c.session.csrfToken} reactAction={reactAction} />
  // An older page is history: it does not follow new messages.
  return <Polled id="chat-timeline" url={before ? null : inboxHref(inbox.scope, inbox.state, {}, "/live/timeline")} children={bubbles} />
}

/** What the reply box holds after a refusal: the typed text, the chosen key and what it quotes. */
export interface ReplyValues {
  keyId: string
  content: string
  replyTo: string
}

/** The inbox page; `failure` is a refused reply or action, shown above the reply box again. */
export async function inboxPage(c: PageContext, failure?: { errors: string[]; status: number; values?: ReplyValues }): Promise<Response> {
  const inbox = await inboxOf(c)
  const { phone, scope, state } = inbox
  const list = await chatsOf(c, inbox)
  // The open chat need not be among those the list shows (another filter, a search, further down).
  const open = state.chatId ? await c.dash.deps.chats.chat(inbox.operator, phone.id, state.chatId) : undefined
  const timeline = open ? await timelineOf(c, inbox, open.id) : null
  const keys: ApiKeyRow[] = await sendingKeys(c, phone.accountId, scope.env)
  const replyTo = failure?.values?.replyTo ?? c.url.searchParams.get("reply") ?? ""
  const quoted = timeline?.messages.find((m) => m.id === replyTo)
  const values = failure?.values ?? { keyId: keys[0]?.id ?? "", content: "", replyTo }
  return htmlResponse(
    <Layout title={`Chats · ${phone.displayName}`} section="Chats" scope={scope} csrfToken={c.session.csrfToken} path="/dashboard/chats">
      <div class={`inbox${open ? " has-chat" : ""}`}>
        <aside class="chat-list" aria-label="Chats">
          <p class="inbox-phone">
            <a href={href(`/dashboard/phones/${encodeURIComponent(phone.id)}`, scope)}>{`← ${phone.phoneNumber}`}</a>
          </p>
          <ChatListHead scope={scope} state={state} />
          <div class="chat-items-scroll">{listPane(c, inbox, list)}</div>
        </aside>
        <section class="chat-pane" aria-label={open ? `Chat with ${chatTitle(open)}` : "No chat open"}>
          {open && timeline ? (
            <>
              <ChatHeader chat={open} scope={scope} state={state} csrfToken={c.session.csrfToken} initial={initialOf(chatTitle(open))} />
              <ErrorList errors={failure?.errors} />
              <div class="chat-scroll">{timelinePane(c, inbox, timeline)}</div>
              <ReplyBox scope={scope} state={state} csrfToken={c.session.csrfToken} keys={keys} values={values} quote={replyTo ? (quoted ? previewOf(quoted) : replyTo) : null} />
            </>
          ) : (
            <p class="chat-empty muted">{list.chats.length === 0 && !state.search && state.filter === "all" ? "No chats yet: messages this phone sends and receives appear on the left as they arrive." : "Pick a chat on the left."}</p>
          )}
        </section>
      </div>
    </Layout>,
    failure?.status ?? 200,
  )
}

async function livePane(c: PageContext, which: "list" | "timeline"): Promise<Response> {
  const inbox = await inboxOf(c)
  if (which === "list") return pollAnswer(c, listPane(c, inbox, await chatsOf(c, inbox)))
  if (!inbox.state.chatId) throw errors.validation(["chat is required"])
  return pollAnswer(c, timelinePane(c, inbox, await timelineOf(c, inbox, inbox.state.chatId)))
}

/** The Chats section of the navigation: the inbox of the account's phone (a choice when it has several). */
async function chatsIndex(c: PageContext): Promise<Response> {
  const phones = c.scope.account ? await listPhones(c.dash.deps.ctx, c.scope.account.id) : []
  if (phones.length === 1) return redirect(href(`/dashboard/phones/${encodeURIComponent(phones[0]!.id)}/chats`, c.scope))
  return htmlResponse(
    <Layout title="Chats" section="Chats" scope={c.scope} csrfToken={c.session.csrfToken} path="/dashboard/chats">
      {phones.length === 0 ? <p>This account has no phone yet.</p> : <p>Whose chats?</p>}
      <ul>
        {phones.map((p) => (
          <li>
            <a href={href(`/dashboard/phones/${encodeURIComponent(p.id)}/chats`, c.scope)}>{`${p.phoneNumber} · ${p.displayName}`}</a>
          </li>
        ))}
      </ul>
    </Layout>,
  )
}

/** A timeline entry's attachment, through the same domain function as GET /v1/chats/{chatId}/messages/{messageId}/media. */
async function chatMedia(c: PageContext): Promise<Response> {
  const inbox = await inboxOf(c)
  const cmd = { fromPhoneId: inbox.phone.id, chatId: inbox.state.chatId ?? "", messageId: c.params.messageId! }
  return attachmentResponse(await chatMediaFile(c.dash.deps.ctx, c.dash.deps.inboundMedia, inbox.operator, cmd))
}

/** GET /dashboard/chats, a phone's inbox, its two self-refreshing panes and its attachments. */
export const chatsRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  app
    .get("/dashboard/chats", page(dash, chatsIndex, errorPage))
    .get("/dashboard/phones/:phoneId/chats", page(dash, (c) => inboxPage(c), errorPage))
    .get("/dashboard/phones/:phoneId/chats/live/list", page(dash, (c) => livePane(c, "list"), errorPage))
    .get("/dashboard/phones/:phoneId/chats/live/timeline", page(dash, (c) => livePane(c, "timeline"), errorPage))
    .get("/dashboard/phones/:phoneId/chats/media/:messageId", page(dash, chatMedia, errorPage))
