import { isActiveKey, listApiKeys, principalOfKey } from "../../../domain/api-keys"
import { pollOfMessage } from "../../../domain/polls"
import { PollSection } from "../views/poll"
import { inboundRowMediaFile } from "../../../domain/inbound-media"
import { inboundDeliveries, inboundMessage, messageThread } from "../../../domain/message-log"
import { sendMessage } from "../../../domain/messages"
import { hasAnyScope, REQUIRED_SCOPES } from "../../../domain/scopes"
import { errors } from "../../../lib/errors"
import type { ApiKeyRow, Environment } from "../../../store/api-keys"
import type { InboundRow } from "../../../store/inbound"
import { SendMessageBody } from "../../models/messages"
import { attachmentResponse, INLINE_IMAGES } from "../attachment"
import type { DashboardApp } from "../base"
import { action, formFailure, page, validated, type Dashboard, type FormWords, type PageContext } from "../context"
import { htmlResponse, redirect } from "../respond"
import { href, scopeAt, type Scope } from "../scope"
import { CsrfField, Layout } from "../views/layout"
import { ErrorList, Time } from "../views/parts"
import { EventDeliveries, senderLabel } from "../views/messages"
import { ChangeFacts, KindFacts, Thread } from "../views/thread"
import { errorPage } from "./errors"

/*
 * An inbound message's page (docs/dashboard.md § "Inbound attachments and replies"): its text, what it quotes, its
 * location or contact card, its attachment (an image shown inline, anything else a download),
 * the reactions and replies it got, and a form that answers it with a reply quoting it.
 */

/** The reply form's labels for the API's field names. */
const REPLY_WORDS: FormWords = {
  content: { label: "Your reply", sentences: [[/is required|must not be empty/, "Your reply must not be empty"]] },
}

function mediaHref(m: InboundRow, scope: Pick<Scope, "account" | "env">): string {
  return href(`/dashboard/messages/${encodeURIComponent(m.id)}/media`, scope)
}

/** The attachment: inline when it is a plain image, a download link otherwise, or why it is gone. */
function Attachment(props: { m: InboundRow; scope: Pick<Scope, "account" | "env"> }) {
  const { m } = props
  const media = m.media
  if (!media) return null
  const name = media.fileName ?? `${media.mimetype} file`
  const size = `${(media.sizeBytes / 1024).toFixed(media.sizeBytes < 10_240 ? 1 : 0)} KiB`
  return (
    <section aria-labelledby="media-title">
      <h2 id="media-title">Attachment</h2>
      {m.mediaGoneAtMs !== null ? (
        <p class="muted">
          WhatsApp no longer has this file, and the sender's phone did not upload it again (<Time ms={m.mediaGoneAtMs} />).
        </p>
      ) : (
        <>
          {INLINE_IMAGES.has(media.mimetype) ? <img class="inbound-media" src={mediaHref(m, props.scope)} alt={`Image sent by ${m.fromAddress}`} /> : null}
          <p>
            <a href={mediaHref(m, props.scope)} download={name}>{`Download ${name}`}</a>
            <span class="muted">{` · ${media.mimetype} · ${size}`}</span>
          </p>
          <p class="muted">The first download fetches it from WhatsApp through the receiving phone, which must be connected.</p>
        </>
      )}
    </section>
  )
}

function ReplyForm(props: { m: InboundRow; scope: Scope; csrfToken: string; keys: ApiKeyRow[]; values: { keyId: string; content: string } }) {
  const { m, keys } = props
  if (keys.length === 0) {
    return (
      <p>
        {"A reply is sent with a live key of this account that has messages:send. "}
        <a href={href("/dashboard/keys", props.scope)}>Create one</a>
        {" first."}
      </p>
    )
  }
  return (
    <form method="post" action={href(`/dashboard/messages/${encodeURIComponent(m.id)}/reply`, props.scope)} class="fields">
      <CsrfField token={props.csrfToken} />
      <div>
        <label for="reply-key">Send as key</label>
        <select id="reply-key" name="keyId">
          {keys.map((k) => (
            <option value={k.id} selected={k.id === props.values.keyId}>
              {`${k.name} (${k.prefix}…${k.last4})`}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="reply-content">Your reply</label>
        <textarea id="reply-content" name="content" rows={3} maxlength={4096} required>
          {props.values.content}
        </textarea>
      </div>
      <div>
        <button type="submit">Send reply</button>
      </div>
    </form>
  )
}

/** The active keys of an account and environment that may send, newest first as listed. */
export async function sendingKeys(c: PageContext, accountId: string, env: Environment): Promise<ApiKeyRow[]> {
  const nowMs = c.dash.deps.ctx.clock.nowMs()
  return (await listApiKeys(c.dash.deps.ctx, accountId)).filter((k) => k.env === env && isActiveKey(k, nowMs) && hasAnyScope(k.scopes, REQUIRED_SCOPES.send))
}

/** The keys of the message's account and environment that may send. */
const replyKeys = (c: PageContext, m: InboundRow) => sendingKeys(c, m.accountId, m.env)

export async function inboundPage(c: PageContext, options: { errors?: string[]; values?: { keyId: string; content: string }; status?: number } = {}): Promise<Response> {
  const m = await inboundMessage(c.dash.deps.ctx, c.params.messageId!)
  const scope = scopeAt(c.scope, m.accountId, m.env)
  const keys = await replyKeys(c, m)
  const values = options.values ?? { keyId: keys[0]?.id ?? "", content: "" }
  return htmlResponse(
    <Layout title="Inbound message" section="Messages" scope={scope} csrfToken={c.session.csrfToken} path="/dashboard/messages">
      <p>
        <a href={href("/dashboard/messages", scope, { direction: "inbound" })}>← Inbound messages</a>
      </p>
      <section>
        <dl class="facts stack-narrow">
          <dt>Id</dt>
          <dd>
            <code>{m.id}</code>
          </dd>
          <dt>From</dt>
          <dd>{senderLabel(m)}</dd>
          {m.isGroup ? (
            <>
              <dt>Group</dt>
              <dd>{m.groupId ?? ""}</dd>
            </>
          ) : null}
          <dt>To</dt>
          <dd>{m.toNumber}</dd>
          <dt>Type</dt>
          <dd>{m.type}</dd>
          <dt>Received</dt>
          <dd>
            <Time ms={m.receivedAtMs} />
          </dd>
          <ChangeFacts replyTo={m.replyToId} editedAtMs={m.editedAtMs} revokedAtMs={m.revokedAtMs} scope={scope} />
          <KindFacts location={m.location} contact={m.contact} />
        </dl>
        <h2>Content</h2>
        <p class="content">{m.content}</p>
      </section>
      <PollSection results={await pollOfMessage(c.dash.deps.ctx, m.id)} />
      <Attachment m={m} scope={scope} />
      <Thread thread={await messageThread(c.dash.deps.ctx, m.id)} ourNumber={m.toNumber} scope={scope} />
      <EventDeliveries {...await inboundDeliveries(c.dash.deps.ctx, m)} scope={scope} />
      <section aria-labelledby="reply-title">
        <h2 id="reply-title">Reply</h2>
        <p class="muted">{`Sent from ${m.toNumber} to ${m.isGroup ? (m.groupId ?? "the group") : m.fromAddress}, quoting this message.`}</p>
        <ErrorList errors={options.errors} />
        <ReplyForm m={m} scope={scope} csrfToken={c.session.csrfToken} keys={keys} values={values} />
      </section>
    </Layout>,
    options.status ?? 200,
  )
}

/** Sends the reply through the same rules as `POST /v1/messages/send`, as the chosen key. */
async function sendReply(c: PageContext): Promise<Response> {
  const values = { keyId: c.form.get("keyId"), content: c.form.get("content") }
  const ctx = c.dash.deps.ctx
  const m = await inboundMessage(ctx, c.params.messageId!)
  try {
    const principal = await principalOfKey(ctx, values.keyId)
    if (principal.accountId !== m.accountId || principal.env !== m.env) throw errors.validation(["Pick a live key of this message's account"])
    const to = m.isGroup ? (m.groupId ?? "") : m.fromAddress
    const input = validated(SendMessageBody, { fromPhoneId: m.phoneId, to, content: values.content, replyTo: m.id })
    const { message } = await sendMessage(ctx, { sandbox: c.dash.deps.sandbox, live: c.dash.deps.live }, principal, input)
    c.dash.deps.usage.recordKeyUse(principal)
    return redirect(href(`/dashboard/messages/${encodeURIComponent(message.id)}`, scopeAt(c.scope, m.accountId, m.env)))
  } catch (err) {
    return formFailure(err, (failure) => inboundPage(c, { ...failure, values }), { words: REPLY_WORDS })
  }
}

/** The attachment's bytes for a signed-in operator: an image inline, anything else as a download. */
async function serveMedia(c: PageContext): Promise<Response> {
  const ctx = c.dash.deps.ctx
  return attachmentResponse(await inboundRowMediaFile(ctx, c.dash.deps.inboundMedia, await inboundMessage(ctx, c.params.messageId!)))
}

export const inboundMessageRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  app
    .get("/dashboard/messages/:messageId/media", page(dash, serveMedia, errorPage))
    .post("/dashboard/messages/:messageId/reply", action(dash, sendReply, errorPage))
