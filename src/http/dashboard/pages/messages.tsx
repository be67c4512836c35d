import { inboundLog, outboundLog, RECIPIENT_SCAN_LIMIT } from "../../../domain/message-log"
import { listPhones } from "../../../domain/phones"
import { MESSAGE_STATUSES, type MessageStatus } from "../../../lib/vocabulary"
import type { DashboardApp } from "../base"
import { page, type Dashboard, type PageContext } from "../context"
import { htmlResponse } from "../respond"
import { href, type Scope } from "../scope"
import { Layout } from "../views/layout"
import { InboundTable, OutboundTable } from "../views/messages"
import { errorPage } from "./errors"
import { NoAccount } from "./phones"

const PAGE_SIZE = 50

/** The list's filters, from the query string (so a filtered list can be shared as a link). */
interface Filters {
  direction: "outbound" | "inbound"
  status?: MessageStatus
  phone?: string
  to?: string
  before: number | null
}

function filtersOf(url: URL): Filters {
  const q = url.searchParams
  const status = q.get("status") as MessageStatus | null
  const before = Number(q.get("before"))
  return {
    direction: q.get("direction") === "inbound" ? "inbound" : "outbound",
    status: status && MESSAGE_STATUSES.includes(status) ? status : undefined,
    phone: q.get("phone")?.trim() || undefined,
    to: q.get("to")?.trim() || undefined,
    before: Number.isSafeInteger(before) && before > 0 ? before : null,
  }
}

/** The query parameters of the filters (without the page position). */
function filterParams(f: Filters): Record<string, string | undefined> {
  return { direction: f.direction, status: f.direction === "outbound" ? f.status : undefined, phone: f.phone, to: f.direction === "outbound" ? f.to : undefined }
}

function FilterForm(props: { scope: Scope; filters: Filters; phones: { id: string; label: string }[] }) {
  const { filters: f, scope } = props
  return (
    <form method="get" action="/dashboard/messages" class="fields filters">
      {scope.account ? <input type="hidden" name="account" value={scope.account.id} /> : null}
      <input type="hidden" name="env" value={scope.env} />
      <input type="hidden" name="direction" value={f.direction} />
      {f.direction === "outbound" ? (
        <div>
          <label for="filter-status">Status</label>
          <select id="filter-status" name="status">
            <option value="">any</option>
            {MESSAGE_STATUSES.map((s) => (
              <option value={s} selected={f.status === s}>
                {s}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <div>
        <label for="filter-phone">Phone</label>
        <select id="filter-phone" name="phone">
          <option value="">any</option>
          {props.phones.map((p) => (
            <option value={p.id} selected={f.phone === p.id}>
              {p.label}
            </option>
          ))}
        </select>
      </div>
      {f.direction === "outbound" ? (
        <div>
          <label for="filter-to">Recipient</label>
          <input id="filter-to" name="to" type="text" value={f.to ?? ""} placeholder="+14155550199 or a group id" />
        </div>
      ) : null}
      <div>
        <button type="submit">Filter</button>
      </div>
    </form>
  )
}

async function messagesPage(c: PageContext): Promise<Response> {
  const { scope } = c
  const account = scope.account
  const f = filtersOf(c.url)
  const ctx = c.dash.deps.ctx
  const phones = account ? (await listPhones(ctx, account.id)).map((p) => ({ id: p.id, label: `${p.displayName} (${p.phoneNumber})` })) : []
  let list = null
  let nextBefore: number | null = null
  if (account && f.direction === "outbound") {
    const result = await outboundLog(ctx, account.id, scope.env, { status: f.status, phoneRef: f.phone, to: f.to, before: f.before }, PAGE_SIZE)
    list = <OutboundTable rows={result.rows} scope={scope} />
    nextBefore = result.nextBefore
  } else if (account) {
    const result = await inboundLog(ctx, account.id, scope.env, { phoneRef: f.phone, before: f.before }, PAGE_SIZE)
    list = <InboundTable rows={result.rows} scope={scope} />
    nextBefore = result.nextBefore
  }
  const tab = (direction: Filters["direction"], label: string) => (
    <a href={href("/dashboard/messages", scope, { direction })} aria-current={f.direction === direction ? "page" : undefined} class="env">
      {label}
    </a>
  )
  return htmlResponse(
    <Layout title="Messages" section="Messages" scope={scope} csrfToken={c.session.csrfToken} path="/dashboard/messages" envScoped>
      {account ? (
        <>
          <nav aria-label="Direction" class="envswitch tabs">
            {tab("outbound", "Outbound")}
            {tab("inbound", "Inbound")}
          </nav>
          <FilterForm scope={scope} filters={f} phones={phones} />
          {f.to ? <p class="muted">{`The recipient filter searches the newest ${RECIPIENT_SCAN_LIMIT.toLocaleString("en-US")} messages.`}</p> : null}
          <section aria-label={f.direction === "outbound" ? "Outbound messages" : "Inbound messages"}>
            {list}
            <p class="actions">
              {f.before !== null ? <a href={href("/dashboard/messages", scope, filterParams(f))}>Newest</a> : null}
              {nextBefore !== null ? <a href={href("/dashboard/messages", scope, { ...filterParams(f), before: String(nextBefore) })}>Older</a> : null}
            </p>
          </section>
        </>
      ) : (
        <NoAccount scopeHref={href("/dashboard/accounts", scope)} />
      )}
    </Layout>,
  )
}

/** Outbound and inbound messages, filtered by the query string, paged by seq. */
export const messagesRoutes = (dash: Dashboard) => (app: DashboardApp) => app.get("/dashboard/messages", page(dash, messagesPage, errorPage))
