import type { PairingState } from "../../../domain/sessions"
import type { PhoneRow } from "../../../store/phones"
import { href, type Scope } from "../scope"
import { CsrfField } from "./layout"
import { Clip, ConfirmAction, StackTable, StatusBadge, STATUS_WORDS, Time, type Column } from "./parts"

/** The account's phones with their live status; the body of the list's live region. */
export function PhonesTable(props: { phones: PhoneRow[]; scope: Scope; csrfToken: string }) {
  if (props.phones.length === 0) return <p class="muted">No phones yet. Add one below.</p>
  const columns: Column<PhoneRow>[] = [
    {
      label: "Name",
      cell: (phone) => (
        <a href={href(`/dashboard/phones/${encodeURIComponent(phone.id)}`, props.scope)}>
          <Clip text={phone.displayName} />
        </a>
      ),
    },
    { label: "Number", cell: (phone) => phone.phoneNumber },
    { label: "Status", cell: (phone) => <StatusBadge status={phone.connectionStatus} /> },
    { label: "Last connected", cell: (phone) => <Time ms={phone.lastConnectedAtMs} /> },
    {
      label: "Actions",
      actions: true,
      cell: (phone) => (
        <ConfirmAction
          label="Remove"
          confirmLabel={`Remove ${phone.phoneNumber}`}
          action={href(`/dashboard/phones/${encodeURIComponent(phone.id)}/remove`, props.scope)}
          csrfToken={props.csrfToken}
        >
          <p>The phone is unlinked and its queued sends fail; its messages are kept.</p>
        </ConfirmAction>
      ),
    },
  ]
  return <StackTable columns={columns} rows={props.phones} />
}

/** The compact list of the overview: each phone with its status in words. */
export function PhoneStatusList(props: { phones: PhoneRow[]; scope: Scope }) {
  if (props.phones.length === 0) return <p class="muted">No phones yet.</p>
  return (
    <ul>
      {props.phones.map((phone) => (
        <li>
          <a href={href(`/dashboard/phones/${encodeURIComponent(phone.id)}`, props.scope)}>{phone.displayName}</a>{" "}
          <StatusBadge status={phone.connectionStatus} />
        </li>
      ))}
    </ul>
  )
}

/** Why the last connection attempt failed, the WhatsApp Web version the phone last announced, and its expiry. */
function LastError(props: { state: PairingState }) {
  const { lastError, waVersion, clientExpiresAtMs } = props.state
  if (!lastError && !waVersion) return null
  return (
    <dl class="facts">
      {lastError ? (
        <>
          <dt>Last failure</dt>
          <dd>
            <strong>{lastError.code}</strong>
            {`: ${lastError.message} (`}
            <Time ms={lastError.atMs} />)
          </dd>
        </>
      ) : null}
      {waVersion ? (
        <>
          <dt>WhatsApp Web version</dt>
          <dd>{waVersion}</dd>
        </>
      ) : null}
      {clientExpiresAtMs !== null ? (
        <>
          <dt>Version expires</dt>
          <dd>
            <Time ms={clientExpiresAtMs} />
            {" (WhatsApp said so: upgrade wagate or set WAGATE_WA_VERSION before then)"}
          </dd>
        </>
      ) : null}
    </dl>
  )
}

function PhoneActions(props: { phone: PhoneRow; status: PairingState["connectionStatus"]; scope: Scope; csrfToken: string }) {
  const { status, scope, csrfToken } = props
  const base = `/dashboard/phones/${encodeURIComponent(props.phone.id)}`
  const canPair = status === "unpaired" || status === "logged_out" || status === "pairing"
  const post = (path: string, label: string, extra?: { name: string; value: string }, secondary = false) => (
    <form method="post" action={href(`${base}/${path}`, scope)} class="inline">
      <CsrfField token={csrfToken} />
      {extra ? <input type="hidden" name={extra.name} value={extra.value} /> : null}
      <button type="submit" class={secondary ? "secondary" : undefined}>
        {label}
      </button>
    </form>
  )
  return (
    <div class="actions">
      {canPair ? post("connect", "Pair by QR", { name: "method", value: "qr" }) : null}
      {canPair ? post("connect", "Pair by code", { name: "method", value: "code" }, true) : null}
      {status === "disconnected" ? post("connect", "Connect") : null}
      {status === "connected" || status === "connecting" || status === "pairing" ? post("disconnect", "Disconnect", undefined, true) : null}
      {status === "connected" || status === "connecting" || status === "disconnected" ? (
        <ConfirmAction label="Log out" confirmLabel="Log out and unlink" action={href(`${base}/logout`, scope)} csrfToken={csrfToken}>
          <p>The device is unlinked from WhatsApp; pairing again needs a new QR scan or code.</p>
        </ConfirmAction>
      ) : null}
    </div>
  )
}

/**
 * A phone's connection panel: status in words, the QR (rendered by the server as SVG) or the
 * pairing code while it pairs, why the last attempt failed, and the actions that apply now. The
 * raw QR string is kept in `data-qr` for tests and for assistive tools.
 */
export function PairingPanel(props: { phone: PhoneRow; state: PairingState; qrSvg: string | null; scope: Scope; csrfToken: string }) {
  const { state } = props
  return (
    <div class="pairing">
      <p>
        Status: <StatusBadge status={state.connectionStatus} />
      </p>
      {state.qr && props.qrSvg ? (
        <figure>
          <div class="qr" data-qr={state.qr} role="img" aria-label="Pairing QR code" dangerouslySetInnerHTML={{ __html: props.qrSvg }} />
          <figcaption>On the phone: WhatsApp › Settings › Linked devices › Link a device, then scan this code. It changes every few seconds.</figcaption>
        </figure>
      ) : null}
      {state.pairingCode ? (
        <p>
          Pairing code: <span class="code" data-pairing-code={state.pairingCode}>{state.pairingCode}</span>
          <br />
          <span class="muted">On the phone: WhatsApp › Linked devices › Link a device › Link with phone number instead, then type this code.</span>
        </p>
      ) : null}
      {state.connectionStatus === "connected" ? <p>{`${STATUS_WORDS.connected}: this phone sends and receives live messages.`}</p> : null}
      <LastError state={state} />
      <PhoneActions phone={props.phone} status={state.connectionStatus} scope={props.scope} csrfToken={props.csrfToken} />
    </div>
  )
}
