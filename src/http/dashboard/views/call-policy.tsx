import { CALL_REPLY_MAX_CHARS } from "../../../domain/call-actions"
import type { CallPolicy } from "../../../store/calls"
import { href, type Scope } from "../scope"
import { CsrfField } from "./layout"
import { ErrorList, Time } from "./parts"

/** What the call policy form shows: the stored policy, or what was typed when it was refused. */
export interface CallPolicyValues {
  rejectCalls: boolean
  replyText: string
}

/**
 * The call policy on a phone's page (docs/dashboard.md § "Pages"): reject incoming calls, and the
 * text a rejected caller gets at most once an hour. The text is the operator's own, shown escaped.
 */
export function CallPolicySection(props: { phoneId: string; policy: CallPolicy; values?: CallPolicyValues; errors?: readonly string[]; scope: Scope; csrfToken: string }) {
  const values = props.values ?? { rejectCalls: props.policy.rejectCalls, replyText: props.policy.replyText ?? "" }
  const action = href(`/dashboard/phones/${encodeURIComponent(props.phoneId)}/call-policy`, props.scope)
  return (
    <section aria-labelledby="call-policy">
      <h2 id="call-policy">Calls</h2>
      <p class="muted">
        {props.policy.rejectCalls ? "Incoming calls are rejected" : "Incoming calls ring on the phone"}
        {props.policy.rejectCalls && props.policy.replyText !== null ? ", and each caller gets the reply at most once an hour" : ""}.{props.policy.rejectCalls || props.policy.replyText !== null ? <> Changed <Time ms={props.policy.updatedAtMs} />.</> : null}
      </p>
      <ErrorList errors={props.errors} />
      <form method="post" action={action} class="fields">
        <CsrfField token={props.csrfToken} />
        <label>
          <input type="checkbox" name="rejectCalls" value="on" checked={values.rejectCalls} /> Reject incoming calls
        </label>
        <div>
          <label for="call-reply">Reply to the caller (optional, at most once per caller per hour)</label>
          <textarea id="call-reply" name="replyText" rows={3} maxlength={CALL_REPLY_MAX_CHARS} placeholder="We cannot take calls here; please write to us.">
            {values.replyText}
          </textarea>
        </div>
        <div>
          <button type="submit">Save call policy</button>
        </div>
      </form>
    </section>
  )
}
