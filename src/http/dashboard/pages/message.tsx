import { messageThread, messageTrail } from "../../../domain/message-log"
import { pollOfMessage } from "../../../domain/polls"
import { PollSection } from "../views/poll"
import { messageTypeOf } from "../../../domain/send-kinds"
import type { DashboardApp } from "../base"
import { page, type Dashboard, type PageContext } from "../context"
import { fragmentResponse, htmlResponse } from "../respond"
import { href, scopeAt } from "../scope"
import { Layout } from "../views/layout"
import { MessageTimeline } from "../views/messages"
import { ChangeFacts, KindFacts } from "../views/thread"
import { errorPage } from "./errors"
import { inboundMessageRoutes, inboundPage } from "./inbound-message"

async function outboundPage(c: PageContext): Promise<Response> {
  const trail = await messageTrail(c.dash.deps.ctx, c.params.messageId!)
  const m = trail.message
  const scope = scopeAt(c.scope, m.accountId, m.env)
  const base = `/dashboard/messages/${encodeURIComponent(m.id)}`
  return htmlResponse(
    <Layout title="Message" section="Messages" scope={scope} csrfToken={c.session.csrfToken} path="/dashboard/messages">
      <p>
        <a href={href("/dashboard/messages", scope)}>← Messages</a>
      </p>
      <section>
        <dl class="facts stack-narrow">
          <dt>Id</dt>
          <dd>
            <code>{m.id}</code>
          </dd>
          <dt>Environment</dt>
          <dd>{m.env}</dd>
          <dt>From</dt>
          <dd>{m.fromNumber}</dd>
          <dt>To</dt>
          <dd>{m.isGroup ? `group ${m.toAddress}` : m.toAddress}</dd>
          <dt>Type</dt>
          <dd>{`${messageTypeOf(m)}${m.extras?.voiceNote ? " (voice note)" : ""}`}</dd>
          <ChangeFacts replyTo={m.replyTo} editedAtMs={m.editedAtMs} revokedAtMs={m.revokedAtMs} scope={scope} />
          <KindFacts location={m.extras?.location} contact={m.extras?.contact} />
          {m.extras?.mentions?.length ? (
            <>
              <dt>Mentions</dt>
              <dd>{m.extras.mentions.join(", ")}</dd>
            </>
          ) : null}
          {m.idempotencyKey ? (
            <>
              <dt>Idempotency key</dt>
              <dd>
                <code>{m.idempotencyKey}</code>
              </dd>
            </>
          ) : null}
        </dl>
        <h2>Content</h2>
        <p class="content">{m.content}</p>
        {m.mediaUrls.length > 0 ? (
          <ul>
            {m.mediaUrls.map((u) => (
              <li>
                <code>{u}</code>
              </li>
            ))}
          </ul>
        ) : null}
      </section>
      <PollSection results={await pollOfMessage(c.dash.deps.ctx, m.id)} />
      <MessageTimeline trail={trail} thread={await messageThread(c.dash.deps.ctx, m.id)} scope={scope} selfHref={href(`${base}/timeline`, scope)} />
    </Layout>,
  )
}

/** A message's page: an outbound message's live timeline, or an inbound message with its media and a reply form. */
export const messageRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  inboundMessageRoutes(dash)(app)
    .get(
      "/dashboard/messages/:messageId",
      page(dash, async (c) => (c.params.messageId!.startsWith("inmsg_") ? await inboundPage(c) : await outboundPage(c)), errorPage),
    )
    .get(
      "/dashboard/messages/:messageId/timeline",
      page(
        dash,
        async (c) => {
          const trail = await messageTrail(c.dash.deps.ctx, c.params.messageId!)
          const scope = scopeAt(c.scope, trail.message.accountId, trail.message.env)
          const self = href(`/dashboard/messages/${encodeURIComponent(trail.message.id)}/timeline`, scope)
          return fragmentResponse(<MessageTimeline trail={trail} thread={await messageThread(c.dash.deps.ctx, trail.message.id)} scope={scope} selfHref={self} />)
        },
        errorPage,
      ),
    )
