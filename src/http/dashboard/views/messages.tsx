import type { MessageThread, MessageTrail, TrailDelivery } from "../../../domain/message-log"
import type { InboundRow } from "../../../store/inbound"
import type { MessageStatus } from "../../../lib/vocabulary"
import type { MessageRow } from "../../../store/messages"
import { href, type Scope } from "../scope"
import { Clip, excerpt, StackTable, Time, type Column } from "./parts"
import { Thread } from "./thread"
import { DeliveryOutcome } from "./webhooks"

const STATUS_TONE: Record<MessageStatus, string> = { pending: "warn", sent: "", delivered: "ok", read: "ok", failed: "bad" }

export function MessageStatusBadge(props: { status: MessageStatus }) {
  return <span class={`badge ${STATUS_TONE[props.status]}`}>{props.status}</span>
}

/** The link from a list row to a message's own page. */
function MessageLink(props: { id: string; atMs: number; scope: Scope }) {
  return (
    <a href={href(`/dashboard/messages/${encodeURIComponent(props.id)}`, props.scope)}>
      <Time ms={props.atMs} />
    </a>
  )
}

/** A list row's mark for a message changed after it was sent: deleted for everyone, or edited. */
function ChangeMark(props: { m: { editedAtMs: number | null; revokedAtMs: number | null } }) {
  if (props.m.revokedAtMs !== null) return <> <span class="badge bad">deleted</span></>
  if (props.m.editedAtMs !== null) return <> <span class="badge">edited</span></>
  return null
}

/**
 * What a list row says a message carries: its text, else what was sent instead of text (a place,
 * a contact card, media), so a location does not show as an empty row.
 */
export function outboundSummary(m: Pick<MessageRow, "content" | "mediaUrls" | "extras">): string {
  const text = excerpt(m.content)
  if (text) return text
  const { location, contact, poll } = m.extras ?? {}
  if (poll) return `Poll: ${poll.question}`
  if (location) return `Location: ${location.name ?? `${location.latitude}, ${location.longitude}`}`
  if (contact) return `Contact card: ${contact.name}`
  return m.mediaUrls.length > 0 ? `${m.mediaUrls.length} media` : ""
}

export function OutboundTable(props: { rows: MessageRow[]; scope: Scope }) {
  if (props.rows.length === 0) return <p class="muted">No messages match.</p>
  const columns: Column<MessageRow>[] = [
    { label: "Created", cell: (m) => <MessageLink id={m.id} atMs={m.createdAtMs} scope={props.scope} /> },
    { label: "From", cell: (m) => <Clip text={m.fromNumber} /> },
    { label: "To", cell: (m) => <Clip text={m.toAddress} /> },
    { label: "Status", cell: (m) => <MessageStatusBadge status={m.status} /> },
    {
      label: "Content",
      cell: (m) => (
        <>
          <Clip text={outboundSummary(m)} />
          {m.extras?.voiceNote ? <> <span class="badge">voice note</span></> : null}
          <ChangeMark m={m} />
        </>
      ),
    },
  ]
  return <StackTable columns={columns} rows={props.rows} />
}

/** The sender as the dashboard shows it: its address (E.164 or `…@lid`) and its username when WhatsApp named one. */
export function senderLabel(m: Pick<InboundRow, "fromAddress" | "fromUsername">): string {
  return m.fromUsername ? `${m.fromAddress} (@${m.fromUsername})` : m.fromAddress
}

export function InboundTable(props: { rows: InboundRow[]; scope: Scope }) {
  if (props.rows.length === 0) return <p class="muted">No inbound messages match.</p>
  const columns: Column<InboundRow>[] = [
    { label: "Received", cell: (m) => <MessageLink id={m.id} atMs={m.receivedAtMs} scope={props.scope} /> },
    { label: "From", cell: (m) => <Clip text={m.isGroup ? `${senderLabel(m)} in ${m.groupId ?? "a group"}` : senderLabel(m)} /> },
    { label: "To", cell: (m) => <Clip text={m.toNumber} /> },
    { label: "Type", cell: (m) => m.type },
    {
      label: "Content",
      cell: (m) => (
        <>
          <Clip text={excerpt(m.content)} />
          <ChangeMark m={m} />
        </>
      ),
    },
  ]
  return <StackTable columns={columns} rows={props.rows} />
}

const PART_COLUMNS: Column<MessageTrail["parts"][number]>[] = [
  { label: "Part", cell: (p) => String(p.partIndex + 1) },
  { label: "Kind", cell: (p) => (p.mediaUrl ? <Clip text={`${p.mediaKind ?? "media"}: ${p.mediaUrl}`} /> : "text") },
  { label: "Status", cell: (p) => <MessageStatusBadge status={p.status} /> },
  { label: "Error", cell: (p) => (p.errorCode ? `${p.errorCode}${p.errorMessage ? `: ${p.errorMessage}` : ""}` : "") },
]

/** A message is settled when no status can follow: read, or failed. */
export function isSettled(status: MessageStatus): boolean {
  return status === "read" || status === "failed"
}

function Attempts(props: { d: TrailDelivery }) {
  if (props.d.attempts.length === 0) return <span class="muted">no attempt yet</span>
  return (
    <ol>
      {props.d.attempts.map((a) => (
        <li>
          <Time ms={a.attemptedAtMs} />
          {` · ${a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.error ?? "no answer")} · ${a.latencyMs} ms`}
          {a.responseBody ? (
            <>
              {" · "}
              <code>{excerpt(a.responseBody, 120)}</code>
            </>
          ) : null}
        </li>
      ))}
    </ol>
  )
}

/**
 * The webhook deliveries of a message's events, each with its endpoint and attempts, and how far
 * the search for its later events looked when it stopped at its bound (domain/message-log.ts).
 */
export function EventDeliveries(props: { deliveries: TrailDelivery[]; searchedUntilMs: number | null; scope: Scope }) {
  const { deliveries } = props
  return (
    <section aria-labelledby="hooks-title">
      <h2 id="hooks-title">Webhook deliveries</h2>
      {deliveries.length === 0 ? (
        <p class="muted">None: no endpoint of this environment subscribes to these events (or none happened yet).</p>
      ) : (
        <ul>
          {deliveries.map((d) => (
            <li>
              <strong>{d.eventType}</strong>
              {" to "}
              <a href={href(`/dashboard/webhooks/${encodeURIComponent(d.endpointId)}`, props.scope)}>{d.endpointUrl ?? d.endpointId}</a>
              {d.endpointUrl ? (
                <>
                  {" "}
                  <code class="muted">{d.endpointId}</code>
                </>
              ) : null}
              {": "}
              <DeliveryOutcome delivery={d.delivery} />
              <Attempts d={d} />
            </li>
          ))}
        </ul>
      )}
      {props.searchedUntilMs !== null ? (
        <p class="muted">
          {"Later events (reactions, edits, deletions) were looked for up to "}
          <Time ms={props.searchedUntilMs} />
          {"; the deliveries of later ones are in each endpoint's delivery log."}
        </p>
      ) : null}
    </section>
  )
}

/**
 * What the timeline says for a message read without a delivery receipt (WhatsApp may send only
 * the read receipt, and the status machine moves sent → read): "not yet" would promise one.
 */
const SKIPPED_DELIVERED = "skipped: WhatsApp reported it read without a delivery receipt"

/**
 * A message's timeline, parts and webhook deliveries. While the message can still change, the
 * block asks for itself again every second (htmx polling) and replaces itself; once settled it
 * renders without the trigger, so the polling stops.
 */
export function MessageTimeline(props: { trail: MessageTrail; thread: MessageThread; scope: Scope; selfHref: string }) {
  const { message: m, parts, deliveries } = props.trail
  const steps: [string, number | null][] = [
    ["Created", m.createdAtMs],
    ["Sent", m.sentAtMs],
    ["Delivered", m.deliveredAtMs],
    ["Read", m.readAtMs],
    ["Failed", m.failedAtMs],
  ]
  const polling = isSettled(m.status) ? {} : { "hx-get": props.selfHref, "hx-trigger": "every 1s", "hx-swap": "outerHTML" }
  return (
    <div id="timeline" {...polling}>
      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">
          Timeline <MessageStatusBadge status={m.status} />
        </h2>
        <ol class="timeline">
          {steps
            .filter(([name, at]) => at !== null || (name !== "Failed" && m.status !== "failed"))
            .map(([name, at]) => (
              <li class={at === null ? "muted" : undefined}>
                <strong>{name}</strong> <Time ms={at} empty={name === "Delivered" && m.readAtMs !== null ? SKIPPED_DELIVERED : "not yet"} />
                {name === "Failed" && m.errorCode ? <span>{`: ${m.errorCode}${m.errorMessage ? `: ${m.errorMessage}` : ""}`}</span> : null}
              </li>
            ))}
        </ol>
      </section>
      <Thread thread={props.thread} ourNumber={m.fromNumber} scope={props.scope} />
      {parts.length > 0 ? (
        <section aria-labelledby="parts-title">
          <h2 id="parts-title">WhatsApp messages</h2>
          <StackTable columns={PART_COLUMNS} rows={parts} />
        </section>
      ) : null}
      <EventDeliveries deliveries={deliveries} searchedUntilMs={props.trail.searchedUntilMs} scope={props.scope} />
    </div>
  )
}
