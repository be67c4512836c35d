import { MAX_HISTORY_DAYS } from "../../../domain/history-settings"
import type { HistorySync } from "../../../lib/vocabulary"
import type { HistorySettings } from "../../../store/history-settings"
import { href, type Scope } from "../scope"
import { CsrfField } from "./layout"
import { ErrorList } from "./parts"

/** What the history form shows: the stored settings, or what was typed when it was refused. */
export interface HistoryValues {
  historySync: string
  historyDays: string
}

const MODES: [HistorySync, string][] = [
  ["none", "None: only messages from the linking on"],
  ["recent", "Recent: what WhatsApp Web gets (default)"],
  ["full", "Full: everything the phone holds"],
]

/** A sentence for the settings in force. */
function summary(s: HistorySettings): string {
  if (s.historySync === "none") return "The next linking asks WhatsApp for no history."
  const what = s.historySync === "full" ? "all the history the phone holds" : "recent history (what WhatsApp Web gets)"
  return `The next linking asks WhatsApp for ${what} and keeps messages of the last ${s.historyDays} day${s.historyDays === 1 ? "" : "s"}.`
}

/**
 * History on pairing on a phone's page (docs/dashboard.md § "Pages", docs/admin.md § "History on
 * pairing"): how much chat history the phone asks WhatsApp for when it is linked. WhatsApp sends
 * history once, at linking, so a change applies to the next linking and the page says so.
 */
export function HistorySettingsSection(props: { phoneId: string; settings: HistorySettings; linked: boolean; values?: HistoryValues; errors?: readonly string[]; scope: Scope; csrfToken: string }) {
  const values = props.values ?? { historySync: props.settings.historySync, historyDays: String(props.settings.historyDays) }
  const action = href(`/dashboard/phones/${encodeURIComponent(props.phoneId)}/history-settings`, props.scope)
  return (
    <section aria-labelledby="history-settings">
      <h2 id="history-settings">History on pairing</h2>
      <p class="muted">
        {summary(props.settings)}{" "}
        {props.linked ? "It takes effect at the next linking: the phone linked now keeps the history it got." : "It takes effect when you pair the phone."}
      </p>
      <ErrorList errors={props.errors} />
      <form method="post" action={action} class="fields history-form">
        <CsrfField token={props.csrfToken} />
        <div>
          <label for="history-sync">History to fetch</label>
          <select id="history-sync" name="historySync">
            {MODES.map(([mode, label]) => (
              <option value={mode} selected={values.historySync === mode}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="history-days">{`Keep messages of the last … days (1 to ${MAX_HISTORY_DAYS})`}</label>
          <input id="history-days" name="historyDays" type="number" inputmode="numeric" min={1} max={MAX_HISTORY_DAYS} step={1} required value={values.historyDays} />
        </div>
        <div>
          <button type="submit">Save history settings</button>
        </div>
      </form>
    </section>
  )
}
