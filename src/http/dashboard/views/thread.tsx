import type { MessageThread } from "../../../domain/message-log"
import type { StoredContact, StoredLocation } from "../../../store/inbound"
import { href, type Scope } from "../scope"
import { Clip, excerpt, StackTable, Time, type Column } from "./parts"

/*
 * What a message's page shows around it (docs/dashboard.md § "Pages"): what it quotes, a
 * location or contact card in words, when it was edited or deleted, the reactions to it and the
 * messages that reply to it. Every value is text a sender chose: it is rendered as text only.
 */

/** The link to another message's page. */
export function MessageRef(props: { id: string; scope: Pick<Scope, "account" | "env"> }) {
  return (
    <a href={href(`/dashboard/messages/${encodeURIComponent(props.id)}`, props.scope)}>
      <code>{props.id}</code>
    </a>
  )
}

/** A location or contact card as facts (`dt`/`dd` pairs, inside the caller's `dl`). */
export function KindFacts(props: { location?: StoredLocation | null; contact?: StoredContact | null }) {
  const { location, contact } = props
  return (
    <>
      {location ? (
        <>
          <dt>Location</dt>
          <dd>
            {`${location.latitude}, ${location.longitude}`}
            {location.name ? ` · ${location.name}` : ""}
            {location.address ? ` · ${location.address}` : ""}{" "}
            <a href={`https://www.openstreetmap.org/?mlat=${location.latitude}&mlon=${location.longitude}#map=17/${location.latitude}/${location.longitude}`} rel="noreferrer noopener" target="_blank">
              map
            </a>
          </dd>
        </>
      ) : null}
      {contact ? (
        <>
          <dt>Contact card</dt>
          <dd>
            {contact.name}
            {contact.organization ? ` (${contact.organization})` : ""}
            {`: ${contact.phoneNumbers.join(", ")}`}
            {contact.email ? ` · ${contact.email}` : ""}
          </dd>
        </>
      ) : null}
    </>
  )
}

/** Quoted message, edit and deletion times as facts, each only when it applies. */
export function ChangeFacts(props: { replyTo: string | null; editedAtMs: number | null; revokedAtMs: number | null; scope: Pick<Scope, "account" | "env"> }) {
  return (
    <>
      {props.replyTo ? (
        <>
          <dt>Reply to</dt>
          <dd>
            <MessageRef id={props.replyTo} scope={props.scope} />
          </dd>
        </>
      ) : null}
      {props.editedAtMs !== null ? (
        <>
          <dt>Edited</dt>
          <dd>
            <Time ms={props.editedAtMs} />
          </dd>
        </>
      ) : null}
      {props.revokedAtMs !== null ? (
        <>
          <dt>Deleted for everyone</dt>
          <dd>
            <Time ms={props.revokedAtMs} />
          </dd>
        </>
      ) : null}
    </>
  )
}

/** A sender as the thread shows it: our own phone is marked "(us)", as it is among the replies. */
function fromLabel(address: string, ours: boolean): string {
  return ours ? `${address} (us)` : address
}

/** Our reactions are recorded with our phone's number as the sender (domain/message-actions.ts). */
function reactionColumns(ourNumber: string): Column<MessageThread["reactions"][number]>[] {
  return [
    { label: "When", cell: (r) => <Time ms={r.atMs} /> },
    { label: "From", cell: (r) => <Clip text={fromLabel(r.fromAddress, r.fromAddress === ourNumber)} /> },
    { label: "Reaction", cell: (r) => r.emoji },
  ]
}

function replyColumns(scope: Pick<Scope, "account" | "env">): Column<MessageThread["replies"][number]>[] {
  return [
    { label: "When", cell: (r) => <Time ms={r.atMs} /> },
    { label: "From", cell: (r) => <Clip text={fromLabel(r.fromAddress, r.direction === "outbound")} /> },
    { label: "Message", cell: (r) => <MessageRef id={r.id} scope={scope} /> },
    { label: "Content", cell: (r) => <Clip text={excerpt(r.content)} /> },
  ]
}

/**
 * The reactions to a message and the messages that reply to it, each section only when there are
 * some. `ourNumber` is the number of the phone the message belongs to.
 */
export function Thread(props: { thread: MessageThread; ourNumber: string; scope: Pick<Scope, "account" | "env"> }) {
  const { reactions, replies } = props.thread
  return (
    <>
      {reactions.length > 0 ? (
        <section aria-labelledby="reactions-title">
          <h2 id="reactions-title">Reactions</h2>
          <StackTable columns={reactionColumns(props.ourNumber)} rows={reactions} />
        </section>
      ) : null}
      {replies.length > 0 ? (
        <section aria-labelledby="replies-title">
          <h2 id="replies-title">Replies</h2>
          <StackTable columns={replyColumns(props.scope)} rows={replies} />
        </section>
      ) : null}
    </>
  )
}
