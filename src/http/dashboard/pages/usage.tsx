import { dailyMessages, type DailyMessages, type UsagePeriod } from "../../../domain/usage"
import type { MessageStatus } from "../../../lib/vocabulary"
import type { DashboardApp } from "../base"
import { page, type Dashboard, type PageContext } from "../context"
import { htmlResponse } from "../respond"
import { href, type Scope } from "../scope"
import { Layout } from "../views/layout"
import { StackTable, Time, type Column } from "../views/parts"
import { errorPage } from "./errors"
import { NoAccount } from "./phones"

const CHART_DAYS = 30
const STATUSES: readonly MessageStatus[] = ["read", "delivered", "sent", "pending", "failed"]
const PERIODS: readonly { period: UsagePeriod; label: string }[] = [
  { period: "day", label: "Today" },
  { period: "week", label: "This week" },
  { period: "month", label: "This month" },
]

const total = (d: DailyMessages) => STATUSES.reduce((n, s) => n + d.counts[s], 0)
const dayLabel = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/**
 * Messages per day as stacked bars, drawn as SVG on the server (attributes, no inline style, so
 * the CSP holds); the same figures follow as a table for screen readers and copying.
 */
function DailyChart(props: { days: DailyMessages[] }) {
  const width = 600
  const height = 180
  const gap = 2
  const barWidth = width / props.days.length - gap
  const max = Math.max(1, ...props.days.map(total))
  return (
    <figure>
      <svg class="chart" viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label={`Messages per day for the last ${props.days.length} days, by status`}>
        {props.days.map((d, i) => {
          let y = height
          return (
            <g>
              <title>{`${dayLabel(d.dayMs)}: ${STATUSES.map((s) => `${s} ${d.counts[s]}`).join(", ")}`}</title>
              {STATUSES.map((s) => {
                const h = (d.counts[s] / max) * height
                y -= h
                return h > 0 ? <rect class={`bar-${s}`} x={(i * (barWidth + gap)).toFixed(1)} y={y.toFixed(1)} width={barWidth.toFixed(1)} height={h.toFixed(1)} /> : null
              })}
            </g>
          )
        })}
      </svg>
      <div class="chart-axis" aria-hidden="true">
        <span>{dayLabel(props.days[0]!.dayMs)}</span>
        <span>{dayLabel(props.days.at(-1)!.dayMs)}</span>
      </div>
      <figcaption class="legend">
        {STATUSES.map((s) => (
          <span class={`key key-${s}`}>{s}</span>
        ))}
        <span class="muted">{` · highest day: ${max.toLocaleString("en-US")}`}</span>
      </figcaption>
    </figure>
  )
}

const DAILY_COLUMNS: Column<DailyMessages>[] = [
  { label: "Day", cell: (d) => dayLabel(d.dayMs) },
  ...STATUSES.map((s): Column<DailyMessages> => ({ label: s, cell: (d) => String(d.counts[s]) })),
]

function DailyTable(props: { days: DailyMessages[] }) {
  return (
    <details>
      <summary>Show as a table</summary>
      <StackTable columns={DAILY_COLUMNS} rows={[...props.days].reverse()} />
    </details>
  )
}

/** One card of the period's totals, each count under its name. */
function CountsCard(props: { id: string; title: string; sinceMs: number; counts: [string, number][] }) {
  return (
    <section aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      <p class="muted">
        {"Since "}
        <Time ms={props.sinceMs} />
      </p>
      <dl class="facts">
        {props.counts.map(([name, count]) => (
          <>
            <dt>{name}</dt>
            <dd>{count.toLocaleString("en-US")}</dd>
          </>
        ))}
      </dl>
    </section>
  )
}

async function usagePage(c: PageContext): Promise<Response> {
  const { scope } = c
  const account = scope.account
  const requested = c.url.searchParams.get("period")
  const period: UsagePeriod = requested === "day" || requested === "week" ? requested : "month"
  const body = account ? await usageBody({ c, scope, accountId: account.id, period }) : <NoAccount scopeHref={href("/dashboard/accounts", scope)} />
  return htmlResponse(
    <Layout title="Usage" section="Usage" scope={scope} csrfToken={c.session.csrfToken} path="/dashboard/usage" envScoped>
      {body}
    </Layout>,
  )
}

/** The page's figures; read before rendering, since components render synchronously. */
async function usageBody(props: { c: PageContext; scope: Scope; accountId: string; period: UsagePeriod }) {
  const { c, scope, period } = props
  const report = await c.dash.deps.usage.reportFor(props.accountId, scope.env, period)
  const days = await dailyMessages(c.dash.deps.ctx, props.accountId, scope.env, CHART_DAYS)
  return (
    <>
      <nav aria-label="Period" class="envswitch tabs">
        {PERIODS.map((p) => (
          <a href={href("/dashboard/usage", scope, { period: p.period })} aria-current={p.period === period ? "page" : undefined} class="env">
            {p.label}
          </a>
        ))}
      </nav>
      <div class="cards">
        <CountsCard
          id="usage-messages"
          title="Messages"
          sinceMs={report.startMs}
          counts={[
            ["Total", report.messages.total],
            // Test messages never reach WhatsApp: the sandbox moves them through their statuses.
            [scope.env === "live" ? "Sent (reached WhatsApp)" : "Sent (by the sandbox)", report.messages.sent],
            ["Pending", report.messages.pending],
            ["Failed", report.messages.failed],
          ]}
        />
        <CountsCard
          id="usage-requests"
          title="API requests"
          sinceMs={report.startMs}
          counts={[
            ["Total", report.apiRequests.total],
            ["OK", report.apiRequests.successful],
            ["Failed", report.apiRequests.failed],
          ]}
        />
      </div>
      <section aria-labelledby="usage-daily">
        <h2 id="usage-daily">{`Messages per day, last ${CHART_DAYS} days`}</h2>
        <DailyChart days={days} />
        <DailyTable days={days} />
      </section>
    </>
  )
}

/** Usage: totals for today, this week or this month, and messages per day for 30 days. */
export const usageRoutes = (dash: Dashboard) => (app: DashboardApp) => app.get("/dashboard/usage", page(dash, usagePage, errorPage))
