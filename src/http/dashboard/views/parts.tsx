import type { ComponentChildren } from "preact"
import type { ConnectionStatus } from "../../../lib/vocabulary"
import { CsrfField } from "./layout"

/** A phone's connection status in words, as the operator reads it. */
export const STATUS_WORDS: Record<ConnectionStatus, string> = {
  connected: "Connected",
  pairing: "Pairing",
  connecting: "Connecting",
  disconnected: "Disconnected",
  logged_out: "Logged out",
  unpaired: "Not paired",
}

export function StatusBadge(props: { status: ConnectionStatus }) {
  return <span class={`badge status-${props.status}`}>{STATUS_WORDS[props.status]}</span>
}

/** A time in UTC to the second, with the exact instant in the `datetime` attribute. */
export function Time(props: { ms: number | null | undefined; empty?: string }) {
  if (props.ms == null) return <span class="muted">{props.empty ?? "never"}</span>
  const iso = new Date(props.ms).toISOString()
  return <time datetime={iso}>{`${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`}</time>
}

/** The first characters of a text, on one line (the whole text is on its own page). */
export function excerpt(text: string, max = 80): string {
  const oneLine = text.replace(/\s+/g, " ").trim()
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine
}

/**
 * A value that must stay on one line (an id, a URL, an address, a name): cut with an ellipsis
 * when its column is too narrow, the whole value on hover (`title`) and in the page's text.
 */
export function Clip(props: { text: string; code?: boolean }) {
  return props.code ? (
    <code class="clip" title={props.text}>
      {props.text}
    </code>
  ) : (
    <span class="clip" title={props.text}>
      {props.text}
    </span>
  )
}

/** One column of a StackTable: its header, and what a row shows under it. */
export interface Column<Row> {
  /** The header, repeated as each cell's `data-label` so a narrow screen stacks rows as labelled lines. */
  label: string
  cell: (row: Row) => ComponentChildren
  /** A column of buttons: its header is muted and its cells carry no label. */
  actions?: boolean
}

/** A table that stacks into labelled lines on a narrow screen (the `stack` style). */
export function StackTable<Row>(props: { columns: readonly Column<Row>[]; rows: readonly Row[] }) {
  return (
    <div class="table-wrap">
      <table class="stack">
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th scope="col">{c.actions ? <span class="muted">{c.label}</span> : c.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr>
              {props.columns.map((c) => (
                <td data-label={c.actions ? undefined : c.label}>{c.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** What went wrong with the last form, announced to screen readers. */
export function ErrorList(props: { errors?: readonly string[] }) {
  if (!props.errors || props.errors.length === 0) return null
  return (
    <div class="errors" role="alert">
      <p>That did not work:</p>
      <ul>
        {props.errors.map((e) => (
          <li>{e}</li>
        ))}
      </ul>
    </div>
  )
}

/** A one-line notice after an action succeeded. */
export function Notice(props: { text: string | null }) {
  return props.text ? (
    <p class="notice" role="status">
      {props.text}
    </p>
  ) : null
}

/**
 * A destructive action behind a confirmation: the first button only opens the disclosure, the
 * second one (inside) posts. Works with keyboard and without script.
 */
export function ConfirmAction(props: { label: string; confirmLabel: string; action: string; csrfToken: string; children?: ComponentChildren }) {
  return (
    <details class="confirm">
      <summary>{props.label}</summary>
      <form method="post" action={props.action}>
        <CsrfField token={props.csrfToken} />
        {props.children}
        <button type="submit" class="danger">
          {props.confirmLabel}
        </button>
      </form>
    </details>
  )
}

/**
 * A secret shown this once (a new API key, a webhook signing secret), with a copy button that
 * assets/dashboard.js wires up. It is rendered only in the response to the form that made it.
 */
export function SecretOnce(props: { title: string; id: string; secret: string; copyLabel: string }) {
  return (
    <section class="notice" aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      <p>Copy it now: it is shown only this once and cannot be shown again.</p>
      <div class="secret">
        <code id={props.id}>{props.secret}</code>
        <button type="button" class="secondary" data-copy-target={props.id}>
          {props.copyLabel}
        </button>
      </div>
    </section>
  )
}
