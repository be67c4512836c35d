import { href, type Scope } from "../scope"
import { CsrfField } from "./layout"
import { ErrorList, StackTable } from "./parts"

/** What the phone page knows of the block list: the list, or why it could not be read. */
export type BlockListState = { contacts: readonly string[] } | { unavailable: string }

/**
 * A phone's block list (docs/dashboard.md § "Pages"): read from WhatsApp when the page is shown,
 * with an unblock button per contact and a form to block one. Every form carries the CSRF token.
 */
export function BlockListSection(props: { phoneId: string; state: BlockListState; scope: Scope; csrfToken: string; errors?: readonly string[] }) {
  const base = `/dashboard/phones/${encodeURIComponent(props.phoneId)}`
  const { state } = props
  return (
    <section aria-labelledby="blocked">
      <h2 id="blocked">Blocked contacts</h2>
      <ErrorList errors={props.errors} />
      {"unavailable" in state ? (
        <p class="muted">{state.unavailable}</p>
      ) : state.contacts.length === 0 ? (
        <p class="muted">This phone blocks nobody.</p>
      ) : (
        <StackTable
          rows={state.contacts}
          columns={[
            { label: "Contact", cell: (contact) => <code>{contact}</code> },
            {
              label: "Actions",
              actions: true,
              cell: (contact) => (
                <form method="post" action={href(`${base}/unblock`, props.scope)} class="inline">
                  <CsrfField token={props.csrfToken} />
                  <input type="hidden" name="contact" value={contact} />
                  <button type="submit" class="secondary">{`Unblock ${contact}`}</button>
                </form>
              ),
            },
          ]}
        />
      )}
      {"unavailable" in state ? null : (
        <form method="post" action={href(`${base}/block`, props.scope)} class="fields">
          <CsrfField token={props.csrfToken} />
          <div>
            <label for="block-contact">Block a contact (E.164 or …@lid)</label>
            <input id="block-contact" name="contact" type="text" required maxlength={40} placeholder="+14155550199" />
          </div>
          <div>
            <button type="submit">Block</button>
          </div>
        </form>
      )}
    </section>
  )
}
