import { EVENT_NAMES } from "../../../domain/event-catalogue"
import type { LoggedDelivery } from "../../../domain/endpoint-deliveries"
import { boundedOutsideText, boundedOutsideTextOrNull } from "../../../lib/outside-text"
import type { DeliveryRow, EndpointRow } from "../../../store/webhooks"
import type { FormWords } from "../context"
import { href, type Scope } from "../scope"
import { CsrfField } from "./layout"
import { Clip, excerpt, StackTable, Time, type Column } from "./parts"

/** A delivery's outcome in a few words: the status, the last answer, and whether it retries. */
export function DeliveryOutcome(props: { delivery: DeliveryRow }) {
  const d = props.delivery
  const answer = d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : boundedOutsideTextOrNull(d.lastError)
  const tone = d.status === "succeeded" ? "ok" : d.status === "failed" ? "bad" : "warn"
  return (
    <span>
      <span class={`badge ${tone}`}>{d.status}</span>
      {answer ? ` ${answer}` : ""}
      {d.status === "pending" && d.nextAttemptAtMs !== null && d.attemptCount > 0 ? (
        <>
          {" · retry "}
          <Time ms={d.nextAttemptAtMs} />
        </>
      ) : null}
    </span>
  )
}

export function EndpointsTable(props: { endpoints: { endpoint: EndpointRow; latest: DeliveryRow | null }[]; scope: Scope }) {
  if (props.endpoints.length === 0) return <p class="muted">{`No ${props.scope.env} endpoints yet.`}</p>
  const columns: Column<(typeof props.endpoints)[number]>[] = [
    {
      label: "URL",
      // Two endpoints may post to one URL (docs/webhooks.md § "Configure an endpoint"): the id
      // under it tells them apart.
      cell: ({ endpoint }) => (
        <>
          <a href={href(`/dashboard/webhooks/${encodeURIComponent(endpoint.id)}`, props.scope)}>
            <Clip text={endpoint.url} />
          </a>
          <br />
          <code class="muted">{endpoint.id}</code>
        </>
      ),
    },
    { label: "Events", cell: ({ endpoint }) => (endpoint.events.includes("*") ? "all events" : endpoint.events.join(", ")) },
    { label: "Enabled", cell: ({ endpoint }) => (endpoint.enabled ? "yes" : <span class="badge warn">no</span>) },
    {
      label: "Last delivery",
      cell: ({ latest }) =>
        latest ? (
          <>
            <DeliveryOutcome delivery={latest} /> <Time ms={latest.updatedAtMs} />
          </>
        ) : (
          <span class="muted">none yet</span>
        ),
    },
  ]
  return <StackTable columns={columns} rows={props.endpoints} />
}

/** The endpoint forms' labels for the API's field names. */
export const ENDPOINT_WORDS: FormWords = {
  url: { label: "URL" },
  events: { label: "Events", sentences: [[/^events must be/, "Events: tick All events, or at least one event"]] },
}

/** The heading of each resource's events; a resource not named here is headed by its own name. */
const RESOURCE_HEADINGS: Record<string, string> = { message: "Message events", phone: "Phone events", poll: "Poll events", call: "Call events", group: "Group events", chat: "Chat events", history: "History events" }

/**
 * The event names grouped by resource (the part before the first dot), the groups in the order of
 * their first event in the catalogue and each group's events in catalogue order.
 */
export function eventGroups(names: readonly string[] = EVENT_NAMES): { heading: string; events: string[] }[] {
  const groups = new Map<string, string[]>()
  for (const name of names) {
    const resource = name.split(".")[0]!
    groups.set(resource, [...(groups.get(resource) ?? []), name])
  }
  return [...groups].map(([resource, events]) => ({ heading: RESOURCE_HEADINGS[resource] ?? `${resource} events`, events }))
}

/** The event checkboxes: "All events" (`*`) or a choice among them, grouped by resource. */
export function EventChoices(props: { selected: readonly string[] }) {
  return (
    <fieldset>
      <legend>Events</legend>
      <label>
        <input type="checkbox" name="events" value="*" checked={props.selected.includes("*")} /> All events (including future ones)
      </label>
      {eventGroups().map((group) => (
        <fieldset class="event-group">
          <legend>{group.heading}</legend>
          {group.events.map((event) => (
            <label>
              <input type="checkbox" name="events" value={event} checked={props.selected.includes(event)} /> {event}
            </label>
          ))}
        </fieldset>
      ))}
    </fieldset>
  )
}

/** The receiver's last answer: its status code and the start of its body, or why there was none. */
function LastAnswer(props: { row: LoggedDelivery }) {
  const last = props.row.attempts.at(-1)
  if (!last) return <span class="muted">no attempt yet</span>
  const code = last.statusCode !== null ? `HTTP ${last.statusCode}` : (boundedOutsideTextOrNull(last.error) ?? "no answer")
  return (
    <>
      {code}
      {last.responseBody ? (
        <>
          {" "}
          <Clip text={excerpt(boundedOutsideText(last.responseBody), 120)} code />
        </>
      ) : null}
    </>
  )
}

function deliveryColumns(scope: Scope, csrfToken: string): Column<LoggedDelivery>[] {
  return [
    {
      label: "Event",
      cell: (row) => (
        <>
          <strong title={row.delivery.id}>{row.eventType}</strong>
          {row.messageId ? (
            <>
              {" "}
              <a href={href(`/dashboard/messages/${encodeURIComponent(row.messageId)}`, scope)} title={row.messageId}>
                message
              </a>
            </>
          ) : null}
          {row.delivery.resentFrom ? (
            <>
              {" "}
              <span class="muted small" title={`${row.delivery.id} · resend of ${row.delivery.resentFrom}`}>
                resend of <Clip text={row.delivery.resentFrom} code />
              </span>
            </>
          ) : null}
        </>
      ),
    },
    { label: "Status", cell: (row) => <span class={`badge ${TONES[row.delivery.status]}`}>{row.delivery.status}</span> },
    { label: "Attempts", cell: (row) => String(row.delivery.attemptCount) },
    { label: "Last answer", cell: (row) => <LastAnswer row={row} /> },
    {
      label: "Time",
      cell: (row) =>
        row.delivery.status === "pending" && row.delivery.nextAttemptAtMs !== null && row.delivery.attemptCount > 0 ? (
          <>
            {"retry "}
            <Time ms={row.delivery.nextAttemptAtMs} />
          </>
        ) : (
          <Time ms={row.delivery.updatedAtMs} />
        ),
    },
    {
      label: "Resend",
      actions: true,
      cell: (row) =>
        row.delivery.status !== "pending" ? (
          <form method="post" action={href(`/dashboard/webhooks/${encodeURIComponent(row.delivery.endpointId)}/deliveries/${encodeURIComponent(row.delivery.id)}/resend`, scope)} class="inline">
            <CsrfField token={csrfToken} />
            <button type="submit" class="secondary small">
              Resend
            </button>
          </form>
        ) : null,
    },
  ]
}

const TONES: Record<DeliveryRow["status"], string> = { succeeded: "ok", failed: "bad", pending: "warn" }

/** The delivery log: a row per delivery, its last answer, and resend for finished ones. */
export function DeliveryLog(props: { rows: LoggedDelivery[]; scope: Scope; csrfToken: string; filtered: boolean }) {
  if (props.rows.length === 0) return <p class="muted">{props.filtered ? "No delivery matches these filters." : "No deliveries yet."}</p>
  return (
    <div class="delivery-log">
      <StackTable columns={deliveryColumns(props.scope, props.csrfToken)} rows={props.rows} />
    </div>
  )
}

/** The log's filters: a status and an event (one name, or a resource's `group.*`); a GET form. */
export function DeliveryFilters(props: { action: string; scope: Scope; status: string; event: string }) {
  return (
    <form method="get" action={props.action} class="filters">
      {props.scope.account ? <input type="hidden" name="account" value={props.scope.account.id} /> : null}
      <input type="hidden" name="env" value={props.scope.env} />
      <label>
        {"Status "}
        <select name="status">
          {[["", "All"], ["failed", "Failed"], ["pending", "Pending"], ["succeeded", "Delivered"]].map(([value, label]) => (
            <option value={value} selected={props.status === value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        {"Event "}
        <select name="event">
          <option value="">All events</option>
          {eventGroups().map((group) => (
            <optgroup label={group.heading}>
              <option value={`${group.events[0]!.split(".")[0]}.*`} selected={props.event === `${group.events[0]!.split(".")[0]}.*`}>{`${group.events[0]!.split(".")[0]}.*`}</option>
              {group.events.map((event) => (
                <option value={event} selected={props.event === event}>
                  {event}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </label>
      <button type="submit" class="secondary">
        Filter
      </button>
    </form>
  )
}

/** The open event streams of this node for the scope's keys: how many per key, since when. */
export function StreamConnections(props: { streams: { keyName: string; keyPrefix: string; count: number; sinceMs: number; transport: string }[] }) {
  const columns: Column<(typeof props.streams)[number]>[] = [
    { label: "API key", cell: (s) => (<><Clip text={s.keyName} /> <code class="muted">{s.keyPrefix}</code></>) },
    { label: "Open", cell: (s) => String(s.count) },
    { label: "Since", cell: (s) => <Time ms={s.sinceMs} /> },
    { label: "Transport", cell: (s) => s.transport },
  ]
  return (
    <>
      {props.streams.length === 0 ? <p class="muted">No open event streams.</p> : <StackTable columns={columns} rows={props.streams} />}
      <p class="muted small">Streams open on this node; with several nodes, each node lists its own.</p>
    </>
  )
}
