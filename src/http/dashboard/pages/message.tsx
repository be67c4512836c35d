import { inboundMessage, messageTrail } from "../../../domain/message-log"
import type { DashboardApp } from "../base"
import { page, type Dashboard, type PageContext } from "../context"
import { fragmentResponse, htmlResponse } from "../respond"
import { href, type Scope } from "../scope"
import { Layout } from "../views/layout"
import { MessageTimeline } from "../views/messages"
import { Time } from "../views/parts"
import { errorPage } from "./errors"

/** The scope moved to the message's account and environment (a shared link needs neither). */
function scopeOf(c: PageContext, accountId: string, env: Scope["env"]): Scope {
  return { ...c.scope, account: c.scope.accounts.find((a) => a.id === accountId) ?? c.scope.account, env, unknownAccount: false }
}

function inboundPage(c: PageContext): Response {
  const m = inboundMessage(c.dash.deps.ctx, c.params.messageId!)
  const scope = scopeOf(c, m.accountId, m.env)
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
          <dd>{m.fromAddress}</dd>
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
        </dl>
        <h2>Content</h2>
        <p class="content">{m.content}</p>
      </section>
    </Layout>,
  )
}

function outboundPage(c: PageContext): Response {
  const trail = messageTrail(c.dash.deps.ctx, c.params.messageId!)
  const m = trail.message
  const scope = scopeOf(c, m.accountId, m.env)
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
      <MessageTimeline trail={trail} scope={scope} selfHref={href(`${base}/timeline`, scope)} />
    </Layout>,
  )
}

/** A message's page: an outbound message's live timeline, or an inbound message as text. */
export const messageRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  app
    .get(
      "/dashboard/messages/:messageId",
      page(dash, (c) => (c.params.messageId!.startsWith("inmsg_") ? inboundPage(c) : outboundPage(c)), errorPage),
    )
    .get(
      "/dashboard/messages/:messageId/timeline",
      page(
        dash,
        (c) => {
          const trail = messageTrail(c.dash.deps.ctx, c.params.messageId!)
          const scope = scopeOf(c, trail.message.accountId, trail.message.env)
          const self = href(`/dashboard/messages/${encodeURIComponent(trail.message.id)}/timeline`, scope)
          return fragmentResponse(<MessageTimeline trail={trail} scope={scope} selfHref={self} />)
        },
        errorPage,
      ),
    )
