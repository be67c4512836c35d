import { endpointsWithLatestDelivery } from "../../../domain/endpoint-deliveries"
import { createEndpoint, listAccountEndpoints } from "../../../domain/webhook-endpoints"
import type { DashboardApp } from "../base"
import { action, formFailure, page, type Dashboard, type PageContext } from "../context"
import { htmlResponse } from "../respond"
import { href } from "../scope"
import { CsrfField, Layout } from "../views/layout"
import { ErrorList } from "../views/parts"
import { ENDPOINT_WORDS, EndpointsTable, EventChoices, StreamConnections } from "../views/webhooks"
import { listApiKeys } from "../../../domain/api-keys"
import { errorPage } from "./errors"
import { NoAccount } from "./phones"
import { endpointPage } from "./webhook"

/** This node's open event streams of the scope's account and environment, grouped by key, oldest first. */
async function streamsOf(c: PageContext, accountId: string) {
  const open = c.dash.deps.eventStreams.openStreams().filter((s) => s.accountId === accountId && s.env === c.scope.env)
  if (open.length === 0) return []
  const keys = new Map((await listApiKeys(c.dash.deps.ctx, accountId)).map((k) => [k.id, k]))
  const byKey = new Map<string, { keyName: string; keyPrefix: string; count: number; sinceMs: number; transports: Set<string> }>()
  for (const s of open) {
    const key = keys.get(s.keyId)
    const seen = byKey.get(s.keyId) ?? { keyName: key?.name ?? s.keyId, keyPrefix: key ? `${key.prefix}…${key.last4}` : "", count: 0, sinceMs: s.openedAtMs, transports: new Set<string>() }
    seen.transports.add(s.transport === "sse" ? "SSE" : "WebSocket")
    byKey.set(s.keyId, { ...seen, count: seen.count + 1, sinceMs: Math.min(seen.sinceMs, s.openedAtMs) })
  }
  return [...byKey.values()].sort((a, b) => a.sinceMs - b.sinceMs).map(({ transports, ...s }) => ({ ...s, transport: [...transports].sort().join(", ") }))
}

interface AddEndpointForm {
  url: string
  events: string[]
}

async function webhooksPage(c: PageContext, options: { errors?: string[]; values?: AddEndpointForm; status?: number } = {}): Promise<Response> {
  const { scope } = c
  const account = scope.account
  const csrf = c.session.csrfToken
  const values = options.values ?? { url: "", events: ["*"] }
  return htmlResponse(
    <Layout title="Webhooks" section="Webhooks" scope={scope} csrfToken={csrf} path="/dashboard/webhooks" envScoped>
      {account ? (
        <>
          <section aria-labelledby="endpoints">
            <h2 id="endpoints">{`${scope.env === "test" ? "Test" : "Live"} endpoints of ${account.name}`}</h2>
            <EndpointsTable endpoints={await endpointsWithLatestDelivery(c.dash.deps.ctx, account.id, scope.env)} scope={scope} />
          </section>
          <section aria-labelledby="streams">
            <h2 id="streams">Stream connections</h2>
            <StreamConnections streams={await streamsOf(c, account.id)} />
          </section>
          <section aria-labelledby="add-endpoint">
            <h2 id="add-endpoint">{`Add a ${scope.env} endpoint`}</h2>
            <ErrorList errors={options.errors} />
            <form method="post" action={href("/dashboard/webhooks", scope)} class="fields">
              <CsrfField token={csrf} />
              <div>
                <label for="endpoint-url">URL</label>
                <input id="endpoint-url" name="url" type="text" inputmode="url" required maxlength={2048} placeholder="https://example.com/wagate" value={values.url} />
              </div>
              <EventChoices selected={values.events} />
              <div>
                <button type="submit">Add endpoint</button>
              </div>
            </form>
          </section>
        </>
      ) : (
        <NoAccount scopeHref={href("/dashboard/accounts", scope)} />
      )}
    </Layout>,
    options.status ?? 200,
  )
}

/** Webhook endpoints of one environment: list with their last delivery, and add (secret shown once). */
export const webhooksRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  app.get("/dashboard/webhooks", page(dash, (c) => webhooksPage(c), errorPage)).post(
    "/dashboard/webhooks",
    action(
      dash,
      async (c) => {
        const values = { url: c.form.get("url").trim(), events: c.form.all("events") }
        if (!c.scope.account) return webhooksPage(c, { errors: ["Pick an account first."], values, status: 400 })
        try {
          const endpoint = await createEndpoint(c.dash.deps.ctx, {
            accountId: c.scope.account.id,
            env: c.scope.env,
            url: values.url,
            // "All events" wins over single ones, as the admin API reads ["*"].
            events: values.events.includes("*") ? ["*"] : values.events,
          })
          // The same URL may serve two endpoints (each signs with its own secret and gets its own
          // copy of an event both subscribe to); the new one's page names the others, in case it
          // was a slip.
          const sameUrl = (await listAccountEndpoints(c.dash.deps.ctx, c.scope.account.id)).filter((e) => e.env === endpoint.env && e.url === endpoint.url && e.id !== endpoint.id)
          const notice =
            sameUrl.length > 0
              ? `This URL is also the URL of ${sameUrl.map((e) => e.id).join(", ")}: each endpoint signs with its own secret and gets its own copy of every event both subscribe to.`
              : undefined
          // Rendered, not redirected: the secret must never sit in a URL or a page fetched again.
          return endpointPage({ ...c, params: { webhookId: endpoint.id } }, { secret: endpoint.secret, status: 201, notice })
        } catch (err) {
          return formFailure(err, (failure) => webhooksPage(c, { ...failure, values }), { words: ENDPOINT_WORDS })
        }
      },
      errorPage,
    ),
  )
