import type { ApiKeyRow } from "../../../store/api-keys"
import type { PhoneRow } from "../../../store/phones"
import { href, type Scope } from "../scope"
import { CsrfField } from "./layout"
import { ErrorList, Notice } from "./parts"

/*
 * The Sandbox page's two simulation forms (docs/dashboard.md § "Sandbox: a customer's message and call"): a customer's message
 * and a customer's call, as `POST /v1/sandbox/inbound` and `POST /v1/sandbox/calls` make them.
 */

/** What the simulation forms hold: typed values, and which form a refusal or a notice is about. */
export interface SimulateValues {
  keyId: string
  fromPhoneId: string
  from: string
  content: string
  replyTo: string
  isVideo: boolean
}

export interface SimulateState {
  form: "inbound" | "call"
  errors?: string[]
  notice?: string | null
  values: SimulateValues
}

export const SIMULATE_DEFAULTS = { from: "+14155550199", content: "Thanks, that works for me!", replyTo: "", isVideo: false }

/** The account's phones, the number first: a narrow select cuts the end of a long name, never the number. */
export function PhoneSelect(props: { id: string; label: string; phones: PhoneRow[]; selected: string }) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name="fromPhoneId">
        {props.phones.map((p) => (
          <option value={p.id} selected={p.id === props.selected}>
            {`${p.phoneNumber} · ${p.displayName}`}
          </option>
        ))}
      </select>
    </div>
  )
}

/** The account's test keys that may send, by name, prefix and last four characters. */
export function KeySelect(props: { id: string; label: string; keys: ApiKeyRow[]; selected: string }) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name="keyId">
        {props.keys.map((k) => (
          <option value={k.id} selected={k.id === props.selected}>
            {`${k.name} (${k.prefix}…${k.last4})`}
          </option>
        ))}
      </select>
    </div>
  )
}

function PhoneAndKey(props: { prefix: string; values: SimulateValues; keys: ApiKeyRow[]; phones: PhoneRow[] }) {
  const { prefix, values } = props
  return (
    <>
      <PhoneSelect id={`${prefix}-phone`} label="To phone" phones={props.phones} selected={values.fromPhoneId} />
      <KeySelect id={`${prefix}-key`} label="As key" keys={props.keys} selected={values.keyId} />
      <div>
        <label for={`${prefix}-from`}>Customer's number</label>
        <input id={`${prefix}-from`} name="from" type="tel" required inputmode="tel" autocomplete="off" value={values.from} />
      </div>
    </>
  )
}

/** Both forms, each with its own errors or notice. */
export function SimulateForms(props: { scope: Scope; csrfToken: string; keys: ApiKeyRow[]; phones: PhoneRow[]; state?: SimulateState }) {
  const { scope, csrfToken, keys, phones, state } = props
  const initial = { keyId: keys[0]?.id ?? "", fromPhoneId: phones[0]?.id ?? "", ...SIMULATE_DEFAULTS }
  const inbound = state?.form === "inbound" ? state.values : initial
  const call = state?.form === "call" ? state.values : initial
  if (keys.length === 0 || phones.length === 0) return null
  return (
    <>
      <section aria-labelledby="simulate-message">
        <h2 id="simulate-message">Simulate a customer's message</h2>
        <p class="muted">The phone receives it as if the customer wrote from WhatsApp: it is listed as an inbound message of the test key and emits message.received to test webhooks.</p>
        <ErrorList errors={state?.form === "inbound" ? state.errors : undefined} />
        <form method="post" action={href("/dashboard/sandbox/inbound", scope)} class="fields">
          <CsrfField token={csrfToken} />
          <PhoneAndKey prefix="inbound" values={inbound} keys={keys} phones={phones} />
          <div>
            <label for="inbound-content">Text</label>
            <textarea id="inbound-content" name="content" rows={3} maxlength={4096} required>
              {inbound.content}
            </textarea>
          </div>
          <div>
            <label for="inbound-reply-to">Reply to (optional)</label>
            <input id="inbound-reply-to" name="replyTo" type="text" placeholder="msg_… or inmsg_…" autocomplete="off" value={inbound.replyTo} />
          </div>
          <div>
            <button type="submit">Receive message</button>
          </div>
        </form>
      </section>
      <section aria-labelledby="simulate-call">
        <h2 id="simulate-call">Simulate a call</h2>
        <p class="muted">The phone rings as for a WhatsApp call: call.received, then the phone's call policy (reject and reply text) applies.</p>
        <ErrorList errors={state?.form === "call" ? state.errors : undefined} />
        <Notice text={state?.form === "call" ? (state.notice ?? null) : null} />
        <form method="post" action={href("/dashboard/sandbox/calls", scope)} class="fields">
          <CsrfField token={csrfToken} />
          <PhoneAndKey prefix="call" values={call} keys={keys} phones={phones} />
          <fieldset>
            <legend>Kind</legend>
            <label>
              <input type="checkbox" name="isVideo" checked={call.isVideo} /> Video call
            </label>
          </fieldset>
          <div>
            <button type="submit">Ring the phone</button>
          </div>
        </form>
      </section>
    </>
  )
}
