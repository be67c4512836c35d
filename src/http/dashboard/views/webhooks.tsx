import { EVENT_NAMES } from "../../../domain/event-catalogue"
import type { DeliveryWithAttempts } from "../../../domain/webhook-endpoints"
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

const ATTEMPT_COLUMNS: Column<DeliveryWithAttempts["attempts"][number]>[] = [
  { label: "Attempt", cell: (a) => String(a.attemptNumber) },
  { label: "Time", cell: (a) => <Time ms={a.attemptedAtMs} /> },
  { label: "Result", cell: (a) => (a.statusCode !== null ? `HTTP ${a.statusCode}` : (boundedOutsideTextOrNull(a.error) ?? "no answer")) },
  { label: "Latency", cell: (a) => `${a.latencyMs} ms` },
  { label: "Response", cell: (a) => (a.responseBody ? <Clip text={excerpt(boundedOutsideText(a.responseBody), 200)} code /> : <span class="muted">empty</span>) },
]

/** The delivery log: every delivery with every attempt, and resend for finished ones. */
export function DeliveryLog(props: { rows: DeliveryWithAttempts[]; scope: Scope; csrfToken: string }) {
  if (props.rows.length === 0) return <p class="muted">No deliveries yet.</p>
  return (
    <ul class="deliveries">
      {props.rows.map(({ delivery, eventType, attempts }) => (
        <li class="card">
          <p>
            <strong>{eventType}</strong> <DeliveryOutcome delivery={delivery} />
            <br />
            <span class="muted">
              <code>{delivery.id}</code> · created <Time ms={delivery.createdAtMs} />
              {delivery.resentFrom ? (
                <>
                  {" · resend of "}
                  <code>{delivery.resentFrom}</code>
                </>
              ) : null}
            </span>
          </p>
          {attempts.length > 0 ? (
            <StackTable columns={ATTEMPT_COLUMNS} rows={attempts} />
          ) : (
            <p class="muted">No attempt yet.</p>
          )}
          {delivery.status !== "pending" ? (
            <form method="post" action={href(`/dashboard/webhooks/${encodeURIComponent(delivery.endpointId)}/deliveries/${encodeURIComponent(delivery.id)}/resend`, props.scope)} class="inline">
              <CsrfField token={props.csrfToken} />
              <button type="submit" class="secondary">
                Resend
              </button>
            </form>
          ) : null}
        </li>
      ))}
    </ul>
  )
}
