import type { ApiKeyRow } from "../../../store/api-keys"
import { href, type Scope } from "../scope"
import { chatTitle, inboxHref, type ChatView, type InboxState } from "./chat-list"
import { CsrfField } from "./layout"

/*
 * The open chat's header (back to the list on a narrow screen, mark read, archive) and its reply
 * box (text, the quoted message, the key that sends), each a CSRF-checked form
 * (docs/dashboard.md § "Chats").
 */

function ChatForm(props: { action: string; chatId: string; csrfToken: string; label: string; field?: [string, string] }) {
  return (
    <form method="post" action={props.action} class="inline">
      <CsrfField token={props.csrfToken} />
      <input type="hidden" name="chatId" value={props.chatId} />
      {props.field ? <input type="hidden" name={props.field[0]} value={props.field[1]} /> : null}
      <button type="submit" class="secondary">
        {props.label}
      </button>
    </form>
  )
}

export function ChatHeader(props: { chat: ChatView; scope: Pick<Scope, "account" | "env">; state: InboxState; csrfToken: string; initial: string }) {
  const { chat, scope, state } = props
  const title = chatTitle(chat)
  return (
    <header class="chat-header">
      <a class="chat-back" href={inboxHref(scope, state, { chatId: null })}>
        ← Chats
      </a>
      <span class="avatar" aria-hidden="true">
        {props.initial}
      </span>
      <span class="chat-who">
        <h2>{title}</h2>
        {title !== chat.id ? <span class="muted">{chat.id}</span> : null}
      </span>
      <span class="chat-tools">
        <ChatForm action={inboxHref(scope, state, {}, "/read")} chatId={chat.id} csrfToken={props.csrfToken} label="Mark read" />
        <ChatForm action={inboxHref(scope, state, {}, "/archive")} chatId={chat.id} csrfToken={props.csrfToken} label={chat.archived ? "Unarchive" : "Archive"} field={["archived", chat.archived ? "0" : "1"]} />
      </span>
    </header>
  )
}

export function ReplyBox(props: {
  scope: Pick<Scope, "account" | "env">
  state: InboxState
  csrfToken: string
  keys: ApiKeyRow[]
  values: { keyId: string; content: string; replyTo: string }
  /** The quoted message's text (or id), null when the reply quotes nothing. */
  quote: string | null
}) {
  const { scope, state, keys, values } = props
  if (keys.length === 0) {
    return (
      <p class="reply-box">
        {`Replies are sent with a ${scope.env} key of this account that has messages:send. `}
        <a href={href("/dashboard/keys", scope)}>Create one</a>
        {" first."}
      </p>
    )
  }
  return (
    <form method="post" action={inboxHref(scope, state, {}, "/send")} class="reply-box" id="reply-box">
      <CsrfField token={props.csrfToken} />
      <input type="hidden" name="chatId" value={state.chatId ?? ""} />
      {props.quote !== null ? (
        <p class="reply-quote">
          <input type="hidden" name="replyTo" value={values.replyTo} />
          <span>{`Replying to: ${props.quote}`}</span> <a href={inboxHref(scope, state)}>Cancel</a>
        </p>
      ) : null}
      <div class="reply-row">
        {keys.length > 1 ? (
          <select name="keyId" aria-label="Send as key">
            {keys.map((k) => (
              <option value={k.id} selected={k.id === values.keyId}>
                {`${k.name} (${k.prefix}…${k.last4})`}
              </option>
            ))}
          </select>
        ) : (
          <input type="hidden" name="keyId" value={keys[0]!.id} />
        )}
        <label for="reply-text" class="visually-hidden">
          Type a message
        </label>
        <textarea id="reply-text" name="content" rows={2} maxlength={4096} required placeholder="Type a message">
          {values.content}
        </textarea>
        <button type="submit">Send</button>
      </div>
    </form>
  )
}
