import { nodeOverview, type NodeLeaseView, type NodeOverview, type NodeView } from "../../../domain/node-overview"
import type { NodeState } from "../../../domain/node-list"
import { formatAge } from "../../../lib/age"
import { CONNECTION_STATUSES, type ConnectionStatus } from "../../../lib/vocabulary"
import type { DashboardApp } from "../base"
import { page, type Dashboard, type PageContext } from "../context"
import { htmlResponse } from "../respond"
import { href, type Scope } from "../scope"
import { Layout } from "../views/layout"
import { Clip, StackTable, StatusBadge, type Column } from "../views/parts"
import { errorPage } from "./errors"

/*
 * The Nodes page (docs/dashboard.md § "Pages"): read-only, the same overview as
 * GET /admin/v1/nodes. Node ids are the operator's text and phone numbers come from the store;
 * preact escapes both like any other child or attribute.
 */

const STATE_WORDS: Record<NodeState, { text: string; tone: string }> = {
  live: { text: "Live", tone: "ok" },
  stopping: { text: "Stopping", tone: "warn" },
  silent: { text: "Silent", tone: "bad" },
}

/** An age with the exact instant it counts from in the title. */
function Age(props: { ms: number | null; suffix?: string; empty?: string }) {
  if (props.ms === null) return <span class="muted">{props.empty ?? "none"}</span>
  return <span>{`${formatAge(props.ms)}${props.suffix ?? ""}`}</span>
}

function nodeColumns(servedBy: string): Column<NodeView>[] {
  return [
    {
      label: "Node",
      cell: (n) => (
        <>
          <Clip text={n.nodeId} code />
          {n.nodeId === servedBy ? <span class="muted"> (this page)</span> : null}
        </>
      ),
    },
    { label: "State", cell: (n) => <span class={`badge ${STATE_WORDS[n.state].tone}`}>{STATE_WORDS[n.state].text}</span> },
    { label: "Phones", cell: (n) => `${n.phones} of ${n.maxPhones}` },
    { label: "Heartbeat", cell: (n) => <span title={n.heartbeatAt}><Age ms={n.heartbeatAgeMs} suffix=" ago" /></span> },
    { label: "Up for", cell: (n) => <span title={`since ${n.startedAt}`}><Age ms={n.upForMs} /></span> },
    { label: "Oldest lease", cell: (n) => <Age ms={n.oldestLeaseAgeMs} /> },
    { label: "Newest lease", cell: (n) => <Age ms={n.newestLeaseAgeMs} /> },
    // The operator's own setting, escaped by preact like any other child.
    { label: "URL", cell: (n) => (n.url === null ? <span class="muted">none: requests get 409</span> : <Clip text={n.url} code />) },
  ]
}

interface LeaseRow extends NodeLeaseView {
  nodeId: string
}

function leaseColumns(scope: Scope): Column<LeaseRow>[] {
  const isStatus = (s: string | null): s is ConnectionStatus => s !== null && (CONNECTION_STATUSES as readonly string[]).includes(s)
  return [
    { label: "Node", cell: (l) => <Clip text={l.nodeId} code /> },
    {
      label: "Phone",
      cell: (l) => (l.phoneNumber === null ? <Clip text={l.phoneId} code /> : <a href={href(`/dashboard/phones/${encodeURIComponent(l.phoneId)}`, scope)}>{l.phoneNumber}</a>),
    },
    { label: "Status", cell: (l) => (isStatus(l.connectionStatus) ? <StatusBadge status={l.connectionStatus} /> : <span class="muted">removed</span>) },
    { label: "Token", cell: (l) => <code>{String(l.token)}</code> },
    { label: "Lease age", cell: (l) => <span title={`acquired ${l.acquiredAt}, runs until ${l.expiresAt}`}><Age ms={l.ageMs} /></span> },
  ]
}

function NodesSection(props: { overview: NodeOverview; servedBy: string; scope: Scope; withPhones: boolean }) {
  const { overview, scope } = props
  const leases = overview.nodes.flatMap((n) => (n.leases ?? []).map((l) => ({ ...l, nodeId: n.nodeId })))
  return (
    <>
      <section aria-labelledby="nodes-list">
        <h2 id="nodes-list">Nodes sharing the database</h2>
        <dl class="facts stack-narrow">
          <dt>This page was served by</dt>
          <dd>
            <Clip text={props.servedBy} code />
          </dd>
          <dt>Lease</dt>
          <dd>{`${formatAge(overview.leaseMs)}: a node silent this long is Silent, and its phones go to the others`}</dd>
          <dt>Phones held by no node</dt>
          <dd>{String(overview.unownedPhones ?? 0)}</dd>
        </dl>
        {overview.nodes.length === 0 ? <p class="muted">No node has registered with this database yet.</p> : <StackTable columns={nodeColumns(props.servedBy)} rows={overview.nodes} />}
      </section>
      <section aria-labelledby="node-phones">
        <h2 id="node-phones">Phones by node</h2>
        {props.withPhones ? (
          leases.length === 0 ? (
            <p class="muted">No node holds a phone now.</p>
          ) : (
            <StackTable columns={leaseColumns(scope)} rows={leases} />
          )
        ) : (
          <p>
            <a href={href("/dashboard/nodes", scope, { phones: "1" })}>Show the phones each node holds</a>
            <span class="muted"> (reads every phone)</span>
          </p>
        )}
      </section>
    </>
  )
}

/** On SQLite: one node, and where to read about several. */
function OneNode(props: { servedBy: string }) {
  return (
    <section aria-labelledby="one-node">
      <h2 id="one-node">One node</h2>
      <p>
        {`This wagate (node `}
        <code>{props.servedBy}</code>
        {") keeps its data in SQLite, so it is the only node and owns every phone. Nodes share the phones only when they share a PostgreSQL database ("}
        <code>WAGATE_DATABASE_URL</code>
        {"): see "}
        <code>docs/operations.md</code>
        {", section “Running several nodes”."}
      </p>
    </section>
  )
}

async function nodesPage(c: PageContext): Promise<Response> {
  const { deps } = c.dash
  const withPhones = c.url.searchParams.get("phones") === "1"
  const overview = await nodeOverview(deps.ctx.store, { nowMs: deps.ctx.clock.nowMs(), leaseMs: deps.node.leaseMs, withPhones })
  const servedBy = deps.node.nodeId
  return htmlResponse(
    <Layout title="Nodes" section="Nodes" scope={c.scope} csrfToken={c.session.csrfToken} path="/dashboard/nodes" accountScoped={false}>
      {overview.store === "sqlite" && overview.nodes.length === 0 ? (
        <OneNode servedBy={servedBy} />
      ) : (
        <NodesSection overview={overview} servedBy={servedBy} scope={c.scope} withPhones={withPhones} />
      )}
    </Layout>,
  )
}

/** The nodes sharing the database, their states, ages and phones (read-only). */
export const nodesRoutes = (dash: Dashboard) => (app: DashboardApp) => app.get("/dashboard/nodes", page(dash, nodesPage, errorPage))
