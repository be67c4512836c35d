import { listPhones } from "../../../domain/phones"
import { accountOverview, type Overview } from "../../../domain/overview"
import type { LastError } from "../../../domain/connection-errors"
import { MESSAGE_STATUSES } from "../../../lib/vocabulary"
import type { DashboardApp } from "../base"
import { page, type Dashboard, type PageContext } from "../context"
import { htmlResponse } from "../respond"
import { href, type Scope } from "../scope"
import { Layout } from "../views/layout"
import { Clip, StackTable, Time, type Column } from "../views/parts"
import { PhoneStatusList } from "../views/phones"
import { BrokerStatus } from "../views/broker"
import { errorPage } from "./errors"
import { NoAccount } from "./phones"


function MessagesToday(props: { counts: Overview["messagesToday"]; scope: Scope }) {
  return (
    <section aria-labelledby="today">
      <h2 id="today">Messages today</h2>
      <dl class="facts">
        {MESSAGE_STATUSES.map((status) => (
          <>
            <dt>
              <a href={href("/dashboard/messages", props.scope, { status })}>{status}</a>
            </dt>
            <dd>{props.counts[status].toLocaleString("en-US")}</dd>
          </>
        ))}
      </dl>
    </section>
  )
}

function FailingEndpoints(props: { failing: Overview["failingEndpoints"]; scope: Scope }) {
  return (
    <section aria-labelledby="failing">
      <h2 id="failing">Webhook endpoints failing</h2>
      {props.failing.length === 0 ? (
        <p class="muted">None: every endpoint's latest delivery succeeded (or it has none yet).</p>
      ) : (
        <ul>
          {props.failing.map(({ endpoint, delivery }) => (
            <li>
              <a href={href(`/dashboard/webhooks/${encodeURIComponent(endpoint.id)}`, props.scope)}>{endpoint.url}</a>{" "}
              <code class="muted">{endpoint.id}</code>
              {": "}
              {delivery.lastStatusCode !== null ? `HTTP ${delivery.lastStatusCode}` : (delivery.lastError ?? "no answer")}
              {` after ${delivery.attemptCount} attempt${delivery.attemptCount === 1 ? "" : "s"}`}
              {delivery.status === "pending" ? " (retrying)" : " (gave up)"}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

function failedColumns(scope: Scope): Column<Overview["latestFailedMessages"][number]>[] {
  return [
    {
      label: "Message",
      cell: (m) => (
        <a href={href(`/dashboard/messages/${encodeURIComponent(m.id)}`, scope)}>
          <Clip text={m.id} code />
        </a>
      ),
    },
    { label: "To", cell: (m) => <Clip text={m.toAddress} /> },
    { label: "Error", cell: (m) => `${m.errorCode ?? "unknown"}${m.errorMessage ? `: ${m.errorMessage}` : ""}` },
    { label: "Failed", cell: (m) => <Time ms={m.failedAtMs} /> },
  ]
}

function LatestErrors(props: { overview: Overview; phoneErrors: { name: string; id: string; error: LastError }[]; scope: Scope }) {
  const { overview, phoneErrors, scope } = props
  return (
    <section aria-labelledby="errors" class="wide">
      <h2 id="errors">Latest errors</h2>
      {phoneErrors.length === 0 && overview.latestFailedMessages.length === 0 ? <p class="muted">No recent errors.</p> : null}
      {phoneErrors.length > 0 ? (
        <ul>
          {phoneErrors.map((p) => (
            <li>
              <a href={href(`/dashboard/phones/${encodeURIComponent(p.id)}`, scope)}>{p.name}</a>
              {`: ${p.error.code}: ${p.error.message}`}
            </li>
          ))}
        </ul>
      ) : null}
      {overview.latestFailedMessages.length > 0 ? (
        <StackTable columns={failedColumns(scope)} rows={overview.latestFailedMessages} />
      ) : null}
    </section>
  )
}

async function overviewPage(c: PageContext): Promise<Response> {
  const { scope } = c
  const account = scope.account
  const ctx = c.dash.deps.ctx
  const phones = account ? await listPhones(ctx, account.id) : []
  const states = await Promise.all(phones.map((phone) => c.dash.deps.sessions.pairingState(phone.id)))
  const phoneErrors = phones.flatMap((phone, i) => {
    const error = states[i]!.lastError
    return error ? [{ name: phone.displayName, id: phone.id, error }] : []
  })
  const overview = account ? await accountOverview(ctx, account.id, scope.env) : null
  const broker = account ? ((await c.dash.deps.brokerStatus?.()) ?? null) : null
  return htmlResponse(
    <Layout title="Overview" section="Overview" scope={scope} csrfToken={c.session.csrfToken} path="/dashboard" envScoped>
      {account && overview ? (
        <div class="cards">
          <section aria-labelledby="phones">
            <h2 id="phones">Phones</h2>
            <div data-live={href("/dashboard/phones/live", scope, { view: "compact" })} aria-live="polite">
              <PhoneStatusList phones={phones} scope={scope} />
            </div>
            <p>
              <a href={href("/dashboard/phones", scope)}>Manage phones</a>
            </p>
          </section>
          <MessagesToday counts={overview.messagesToday} scope={scope} />
          <FailingEndpoints failing={overview.failingEndpoints} scope={scope} />
          <BrokerStatus broker={broker} />
          <LatestErrors overview={overview} phoneErrors={phoneErrors} scope={scope} />
        </div>
      ) : (
        <NoAccount scopeHref={href("/dashboard/accounts", scope)} />
      )}
    </Layout>,
  )
}

/** The overview: phones and their live status, today's messages, failing endpoints, latest errors. */
export const overviewRoutes = (dash: Dashboard) => (app: DashboardApp) => app.get("/dashboard", page(dash, overviewPage, errorPage))
