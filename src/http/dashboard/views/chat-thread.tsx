import type { timelineView } from "../../../domain/chat-views"
import type { MessageStatus } from "../../../lib/vocabulary"
import { INLINE_IMAGES } from "../attachment"
import type { Scope } from "../scope"
import { inboxHref, type InboxState } from "./chat-list"
import { CsrfField } from "./layout"
import { excerpt } from "./parts"

/*
 * The Chats page's right pane (docs/dashboard.md § "Chats"): a chat's timeline as bubbles, oldest
 * at the top and newest at the bottom, with the actions WhatsApp's inbox offers on a message
 * (reply quoting it, react). Everything shown is text a sender chose, rendered as text only;
 * a media URL an API client sent is shown as text, never fetched by the page.
 */

export type TimelineView = ReturnType<typeof timelineView>

/** The reactions the bubble's React menu offers, as WhatsApp's quick row does. */
export const QUICK_REACTIONS = ["👍", "❤️", "😂", "😮", "😢", "🙏"] as const

const TICKS: Record<MessageStatus, { mark: string; words: string }> = {
  pending: { mark: "…", words: "Pending" },
  sent: { mark: "✓", words: "Sent" },
  delivered: { mark: "✓✓", words: "Delivered" },
  read: { mark: "✓✓", words: "Read" },
  failed: { mark: "⚠", words: "Failed" },
}

const ORIGIN_WORDS: Record<string, string | null> = { api: null, received: null, phone: "sent from the phone", history: "from history" }

/** What a message says in one line (a quote, a list preview). */
export function previewOf(m: Pick<TimelineView, "content" | "type" | "revokedAt">): string {
  if (m.revokedAt) return "This message was deleted"
  return m.content.trim() === "" ? `[${m.type}]` : excerpt(m.content, 120)
}

/** Where the page fetches a timeline entry's attachment: a received one's own route, or the chat's (the phone's own and history messages). */
function mediaSrc(m: TimelineView, scope: Pick<Scope, "account" | "env">, state: InboxState): string {
  const query = new URLSearchParams({ ...(scope.account ? { account: scope.account.id } : {}), env: scope.env })
  if (m.id.startsWith("inmsg_")) return `/dashboard/messages/${encodeURIComponent(m.id)}/media?${query}`
  query.set("chat", state.chatId ?? "")
  return `/dashboard/phones/${encodeURIComponent(state.phoneId)}/chats/media/${encodeURIComponent(m.id)}?${query}`
}

function Media(props: { m: TimelineView; scope: Pick<Scope, "account" | "env">; state: InboxState }) {
  const { m } = props
  const media = m.media
  if (!media || m.revokedAt) return null
  // API sends (msg_) carry the URLs the client gave, shown as text; received, phone and history messages hold WhatsApp's media.
  if (!m.id.startsWith("msg_") && media.mimetype && INLINE_IMAGES.has(media.mimetype)) {
    return <img class="bubble-img" src={mediaSrc(m, props.scope, props.state)} alt={`Image from ${m.from}`} loading="lazy" />
  }
  const names = media.urls.length > 0 ? media.urls : [media.fileName ?? `${media.mimetype ?? "file"}`]
  return (
    <>
      {names.map((name) => (
        <span class="file-chip" title={name}>
          <span class="chip-kind">File</span>
          {name}
          {media.size ? <span class="muted">{` · ${Math.max(1, Math.round(media.size / 1024))} KiB`}</span> : null}
        </span>
      ))}
    </>
  )
}

function Kind(props: { m: TimelineView }) {
  const { location, contact, poll } = props.m
  if (location) return <span class="kind">{`Location: ${location.latitude}, ${location.longitude}${location.name ? ` · ${location.name}` : ""}`}</span>
  if (contact) return <span class="kind">{`Contact card: ${contact.name}: ${contact.phoneNumbers.join(", ")}`}</span>
  if (poll) return <span class="kind">{`Poll: ${poll.question ?? ""}`}</span>
  return null
}

function ReactMenu(props: { m: TimelineView; action: string; chatId: string; csrfToken: string }) {
  return (
    <details class="react-menu">
      <summary>React</summary>
      <form method="post" action={props.action}>
        <CsrfField token={props.csrfToken} />
        <input type="hidden" name="chatId" value={props.chatId} />
        <input type="hidden" name="messageId" value={props.m.id} />
        {QUICK_REACTIONS.map((emoji) => (
          <button type="submit" name="emoji" value={emoji} class="emoji" aria-label={`React ${emoji}`}>
            {emoji}
          </button>
        ))}
      </form>
    </details>
  )
}

/** One message as a bubble: in on the left, out on the right. */
function Bubble(props: { m: TimelineView; quoted: Map<string, TimelineView>; scope: Pick<Scope, "account" | "env">; state: InboxState; csrfToken: string; reactAction: string }) {
  const { m, state } = props
  const quote = m.replyTo ? props.quoted.get(m.replyTo) : undefined
  const origin = ORIGIN_WORDS[m.origin]
  const tick = m.direction === "out" && m.status ? TICKS[m.status] : null
  const actable = m.id.startsWith("msg_") || m.id.startsWith("inmsg_")
  return (
    <li class={`bubble ${m.direction}${m.revokedAt ? " revoked" : ""}`} id={`m-${m.id}`} data-id={m.id}>
      {m.direction === "in" && state.chatId?.endsWith("@g.us") ? <span class="sender">{m.from}</span> : null}
      {m.replyTo ? <span class="quote">{quote ? previewOf(quote) : "A reply to an earlier message"}</span> : null}
      <Media m={m} scope={props.scope} state={state} />
      <Kind m={m} />
      <span class="text">{m.revokedAt ? "This message was deleted" : m.content}</span>
      <span class="meta">
        {origin ? <span class="origin">{origin}</span> : null}
        {m.editedAt && !m.revokedAt ? <span>edited</span> : null}
        <time datetime={m.at} title={m.at}>
          {m.at.slice(11, 16)}
        </time>
        {tick ? (
          <span class={`tick ${m.status}`} title={tick.words} aria-label={tick.words}>
            {tick.mark}
          </span>
        ) : null}
      </span>
      {m.reactions.length > 0 ? (
        <span class="reactions" aria-label="Reactions">
          {m.reactions.map((r) => (
            <span title={r.from}>{r.emoji}</span>
          ))}
        </span>
      ) : null}
      {actable && !m.revokedAt ? (
        <span class="bubble-actions">
          <a href={`${inboxHref(props.scope, state)}&reply=${encodeURIComponent(m.id)}#reply-box`}>Reply</a>
          <ReactMenu m={m} action={props.reactAction} chatId={state.chatId ?? ""} csrfToken={props.csrfToken} />
        </span>
      ) : null}
    </li>
  )
}

/** The timeline's messages, oldest first (they come newest first), with a link to older ones. */
export function Bubbles(props: { messages: TimelineView[]; olderHref: string | null; scope: Pick<Scope, "account" | "env">; state: InboxState; csrfToken: string; reactAction: string }) {
  const quoted = new Map(props.messages.map((m) => [m.id, m]))
  return (
    <>
      {props.olderHref ? (
        <p class="older">
          <a href={props.olderHref}>Older messages</a>
        </p>
      ) : null}
      <ol class="bubbles">
        {[...props.messages].reverse().map((m) => (
          <Bubble m={m} quoted={quoted} scope={props.scope} state={props.state} csrfToken={props.csrfToken} reactAction={props.reactAction} />
        ))}
      </ol>
    </>
  )
}
