import { endpointDeliveryLog, type DeliveryCursor } from "../../../domain/endpoint-deliveries"
import { changeEndpoint, getEndpoint, removeEndpoint, resendDelivery, rotateSecret } from "../../../domain/webhook-endpoints"
import type { EndpointRow } from "../../../store/webhooks"
import type { DashboardApp } from "../base"
import { action, formFailure, page, type Dashboard, type PageContext } from "../context"
import { htmlResponse, redirect } from "../respond"
import { href, type Scope } from "../scope"
import { CsrfField, Layout } from "../views/layout"
import { ConfirmAction, ErrorList, Notice, SecretOnce, Time } from "../views/parts"
import { DeliveryFilters, DeliveryLog, ENDPOINT_WORDS, EventChoices } from "../views/webhooks"
import { DELIVERY_STATUSES, type DeliveryStatus } from "../../../lib/vocabulary"
import { errorPage } from "./errors"

const LOG_PAGE_SIZE = 25

/** `?before=<createdAtMs>_<deliveryId>`: where an older page of the log starts. */
function cursorOf(url: URL): DeliveryCursor | null {
  const match = /^(\d{1,15})_(\S{1,64})$/.exec(url.searchParams.get("before") ?? "")
  return match ? { createdAtMs: Number(match[1]), id: match[2]! } : null
}

/** What the endpoint is, with the two actions that need a confirmation. */
function EndpointFacts(props: { endpoint: EndpointRow; scope: Scope; csrfToken: string; rotatingUntilMs: number | null }) {
  const { endpoint } = props
  const base = `/dashboard/webhooks/${encodeURIComponent(endpoint.id)}`
  return (
    <section aria-labelledby="endpoint-facts">
      <h2 id="endpoint-facts">{endpoint.url}</h2>
      <dl class="facts stack-narrow">
        <dt>Id</dt>
        <dd>
          <code>{endpoint.id}</code>
        </dd>
        <dt>Environment</dt>
        <dd>{endpoint.env}</dd>
        <dt>Created</dt>
        <dd>
          <Time ms={endpoint.createdAtMs} />
        </dd>
        {props.rotatingUntilMs !== null ? (
          <>
            <dt>Previous secret</dt>
            <dd>
              {"still signs until "}
              <Time ms={props.rotatingUntilMs} />
            </dd>
          </>
        ) : null}
      </dl>
      <div class="actions">
        <ConfirmAction label="Rotate secret" confirmLabel="Issue a new secret" action={href(`${base}/rotate`, props.scope)} csrfToken={props.csrfToken}>
          <p>The current secret keeps signing beside the new one for 24 hours.</p>
        </ConfirmAction>
        <ConfirmAction label="Delete" confirmLabel="Delete endpoint" action={href(`${base}/delete`, props.scope)} csrfToken={props.csrfToken}>
          <p>The endpoint and its delivery log are removed.</p>
        </ConfirmAction>
      </div>
    </section>
  )
}

interface EditForm {
  url: string
  events: string[]
  enabled: boolean
}

/** The log's filters from the query: a known status, and an event name or `resource.*` of at most 64 characters. */
function filtersOf(url: URL): { status?: DeliveryStatus; event?: string } {
  const status = url.searchParams.get("status") ?? ""
  const event = url.searchParams.get("event") ?? ""
  return {
    status: (DELIVERY_STATUSES as readonly string[]).includes(status) ? (status as DeliveryStatus) : undefined,
    event: /^[a-z_.*]{1,64}$/.test(event) ? event : undefined,
  }
}

/**
 * The endpoint page: its facts, then either its delivery log (filtered and paged) or, apart,
 * its edit form (`view: "edit"`). `secret` is set only in the response that created or rotated it.
 */
export async function endpointPage(
  c: PageContext,
  options: { secret?: string; notice?: string; errors?: string[]; values?: EditForm; status?: number; view?: "log" | "edit" } = {},
): Promise<Response> {
  const ctx = c.dash.deps.ctx
  const endpoint = await getEndpoint(ctx, c.params.webhookId!)
  const scope: Scope = {
    ...c.scope,
    account: c.scope.accounts.find((a) => a.id === endpoint.accountId) ?? c.scope.account,
    env: endpoint.env,
    unknownAccount: false,
  }
  const csrf = c.session.csrfToken
  const base = `/dashboard/webhooks/${encodeURIComponent(endpoint.id)}`
  const rotating = endpoint.previousSecretExpiresAtMs !== null && endpoint.previousSecretExpiresAtMs > ctx.clock.nowMs()
  const edit = options.view === "edit"
  return htmlResponse(
    <Layout title={edit ? "Edit webhook endpoint" : "Webhook endpoint"} section="Webhooks" scope={scope} csrfToken={csrf} path="/dashboard/webhooks">
      <p class="actions">
        <a href={href("/dashboard/webhooks", scope)}>← Webhooks</a>
        {edit ? <a href={href(base, scope)}>Delivery log</a> : <a href={href(`${base}/edit`, scope)}>Edit endpoint</a>}
      </p>
      <Notice text={options.notice ?? null} />
      {options.secret ? <SecretOnce title="Signing secret" id="new-secret" secret={options.secret} copyLabel="Copy secret" /> : null}
      <EndpointFacts endpoint={endpoint} scope={scope} csrfToken={csrf} rotatingUntilMs={rotating ? endpoint.previousSecretExpiresAtMs : null} />
      {edit ? <EditSection c={c} endpoint={endpoint} scope={scope} base={base} options={options} /> : await LogSection({ c, endpointId: endpoint.id, scope, base })}
    </Layout>,
    options.status ?? 200,
  )
}

function EditSection(props: { c: PageContext; endpoint: EndpointRow; scope: Scope; base: string; options: { errors?: string[]; values?: EditForm } }) {
  const { endpoint } = props
  const values = props.options.values ?? { url: endpoint.url, events: endpoint.events, enabled: endpoint.enabled }
  return (
    <section aria-labelledby="edit-endpoint">
      <h2 id="edit-endpoint">Edit</h2>
      <ErrorList errors={props.options.errors} />
      <form method="post" action={href(props.base, props.scope)} class="fields">
        <CsrfField token={props.c.session.csrfToken} />
        <div>
          <label for="edit-url">URL</label>
          <input id="edit-url" name="url" type="text" inputmode="url" required maxlength={2048} value={values.url} />
        </div>
        <EventChoices selected={values.events} />
        <div>
          <label>
            <input type="checkbox" name="enabled" value="1" checked={values.enabled} /> Enabled
          </label>
        </div>
        <div>
          <button type="submit">Save endpoint</button>
        </div>
      </form>
    </section>
  )
}

async function LogSection(props: { c: PageContext; endpointId: string; scope: Scope; base: string }) {
  const { c, scope, base } = props
  const filters = filtersOf(c.url)
  const log = await endpointDeliveryLog(c.dash.deps.ctx, props.endpointId, { before: cursorOf(c.url), limit: LOG_PAGE_SIZE, ...filters })
  const kept = { ...(filters.status ? { status: filters.status } : {}), ...(filters.event ? { event: filters.event } : {}) }
  return (
    <section aria-labelledby="log">
      <h2 id="log">Delivery log</h2>
      <DeliveryFilters action={base} scope={scope} status={filters.status ?? ""} event={filters.event ?? ""} />
      <DeliveryLog rows={log.rows} scope={scope} csrfToken={c.session.csrfToken} filtered={Object.keys(kept).length > 0} />
      <p class="actions">
        {cursorOf(c.url) ? <a href={href(base, scope, kept)}>Newest</a> : null}
        {log.next ? <a href={href(base, scope, { ...kept, before: `${log.next.createdAtMs}_${log.next.id}` })}>Older</a> : null}
      </p>
    </section>
  )
}

/** One endpoint: edit events, URL and enabled; rotate its secret; delete; its delivery log and resend. */
export const webhookRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  app
    .get("/dashboard/webhooks/:webhookId", page(dash, (c) => endpointPage(c), errorPage))
    .get("/dashboard/webhooks/:webhookId/edit", page(dash, (c) => endpointPage(c, { view: "edit" }), errorPage))
    .post(
      "/dashboard/webhooks/:webhookId",
      action(
        dash,
        async (c) => {
          const events = c.form.all("events")
          const values: EditForm = { url: c.form.get("url").trim(), events, enabled: c.form.get("enabled") === "1" }
          try {
            const endpoint = await changeEndpoint(c.dash.deps.ctx, c.params.webhookId!, {
              url: values.url,
              events: events.includes("*") ? ["*"] : events,
              enabled: values.enabled,
            })
            return redirect(href(`/dashboard/webhooks/${encodeURIComponent(endpoint.id)}`, { account: c.scope.account, env: endpoint.env }))
          } catch (err) {
            return formFailure(err, (failure) => endpointPage(c, { ...failure, values, view: "edit" }), { words: ENDPOINT_WORDS, passOn: "not_found" })
          }
        },
        errorPage,
      ),
    )
    .post(
      "/dashboard/webhooks/:webhookId/rotate",
      action(
        dash,
        async (c) => {
          const endpoint = await rotateSecret(c.dash.deps.ctx, c.params.webhookId!)
          return endpointPage(c, { secret: endpoint.secret })
        },
        errorPage,
      ),
    )
    .post(
      "/dashboard/webhooks/:webhookId/delete",
      action(
        dash,
        async (c) => {
          const endpoint = await removeEndpoint(c.dash.deps.ctx, c.params.webhookId!)
          const account = c.scope.accounts.find((a) => a.id === endpoint.accountId) ?? c.scope.account
          return redirect(href("/dashboard/webhooks", { account, env: endpoint.env }))
        },
        errorPage,
      ),
    )
    .post(
      "/dashboard/webhooks/:webhookId/deliveries/:deliveryId/resend",
      action(
        dash,
        async (c) => {
          const endpoint = await getEndpoint(c.dash.deps.ctx, c.params.webhookId!)
          await resendDelivery(c.dash.deps.ctx, c.params.deliveryId!)
          const account = c.scope.accounts.find((a) => a.id === endpoint.accountId) ?? c.scope.account
          return redirect(href(`/dashboard/webhooks/${encodeURIComponent(endpoint.id)}`, { account, env: endpoint.env }))
        },
        errorPage,
      ),
    )
