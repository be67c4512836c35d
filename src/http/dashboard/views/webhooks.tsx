import { EVENT_NAMES } from "../../../domain/event-catalogue"
import type { DeliveryWithAttempts } from "../../../domain/webhook-endpoints"
import type { DeliveryRow, EndpointRow } from "../../../store/webhooks"
import { href, type Scope } from "../scope"
import { CsrfField } from "./layout"
import { excerpt, Time } from "./parts"

/** A delivery's outcome in a few words: the status, the last answer, and whether it retries. */
export function DeliveryOutcome(props: { delivery: DeliveryRow }) {
  const d = props.delivery
  const answer = d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : d.lastError
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
  return (
    <div class="table-wrap">
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">Enabled</th>
            <th scope="col">Last delivery</th>
          </tr>
        </thead>
        <tbody>
          {props.endpoints.map(({ endpoint, latest }) => (
            <tr>
              <td data-label="URL">
                <a href={href(`/dashboard/webhooks/${encodeURIComponent(endpoint.id)}`, props.scope)}>{endpoint.url}</a>
              </td>
              <td data-label="Events">{endpoint.events.includes("*") ? "all events" : endpoint.events.join(", ")}</td>
              <td data-label="Enabled">{endpoint.enabled ? "yes" : <span class="badge warn">no</span>}</td>
              <td data-label="Last delivery">
                {latest ? (
                  <>
                    <DeliveryOutcome delivery={latest} /> <Time ms={latest.updatedAtMs} />
                  </>
                ) : (
                  <span class="muted">none yet</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** The event checkboxes: "All events" (`*`) or a choice among them. */
export function EventChoices(props: { selected: readonly string[] }) {
  return (
    <fieldset>
      <legend>Events</legend>
      <label>
        <input type="checkbox" name="events" value="*" checked={props.selected.includes("*")} /> All events (including future ones)
      </label>
      {EVENT_NAMES.map((event) => (
        <label>
          <input type="checkbox" name="events" value={event} checked={props.selected.includes(event)} /> {event}
        </label>
      ))}
    </fieldset>
  )
}

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
            <div class="table-wrap">
              <table class="stack">
                <thead>
                  <tr>
                    <th scope="col">Attempt</th>
                    <th scope="col">Time</th>
                    <th scope="col">Result</th>
                    <th scope="col">Latency</th>
                    <th scope="col">Response</th>
                  </tr>
                </thead>
                <tbody>
                  {attempts.map((a) => (
                    <tr>
                      <td data-label="Attempt">{String(a.attemptNumber)}</td>
                      <td data-label="Time">
                        <Time ms={a.attemptedAtMs} />
                      </td>
                      <td data-label="Result">{a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.error ?? "no answer")}</td>
                      <td data-label="Latency">{`${a.latencyMs} ms`}</td>
                      <td data-label="Response">{a.responseBody ? <code>{excerpt(a.responseBody, 200)}</code> : <span class="muted">empty</span>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
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
