import type { ComponentChildren } from "preact"
import { isActiveKey, listApiKeys, principalOfKey } from "../../../domain/api-keys"
import { sendMessage } from "../../../domain/messages"
import { listPhones } from "../../../domain/phones"
import { SANDBOX_RECIPIENTS } from "../../../domain/sandbox"
import { hasAnyScope, REQUIRED_SCOPES } from "../../../domain/scopes"
import { errors } from "../../../lib/errors"
import type { ApiKeyRow } from "../../../store/api-keys"
import type { PhoneRow } from "../../../store/phones"
import { SendMessageBody } from "../../models/messages"
import type { DashboardApp } from "../base"
import { action, formFailure, page, validated, type Dashboard, type FormWords, type PageContext } from "../context"
import { htmlResponse, redirect } from "../respond"
import { href, type Scope } from "../scope"
import { CsrfField, Layout } from "../views/layout"
import { ErrorList, StackTable, type Column } from "../views/parts"
import { KeySelect, PhoneSelect, SimulateForms, type SimulateState } from "../views/sandbox-simulate"
import { errorPage } from "./errors"
import { NoAccount } from "./phones"

/** What a magic recipient simulates, in words. */
function outcomeWords(outcome: (typeof SANDBOX_RECIPIENTS)[string]): string {
  if (outcome.kind === "failed") return `fails at once with ${outcome.errorCode}`
  return outcome.steps.length === 0 ? "stays sent (never delivered)" : `sent → ${outcome.steps.join(" → ")}, then stops`
}

/** Each magic recipient, then every other number, which runs the whole happy path. */
const RECIPIENT_ROWS: { to: ComponentChildren; happens: string }[] = [
  ...Object.entries(SANDBOX_RECIPIENTS).map(([number, outcome]) => ({ to: <code>{number}</code>, happens: outcomeWords(outcome) })),
  { to: "any other number or sandbox group", happens: "sent → delivered → read" },
]

const RECIPIENT_COLUMNS: Column<(typeof RECIPIENT_ROWS)[number]>[] = [
  { label: "To", cell: (r) => r.to },
  { label: "What happens", cell: (r) => r.happens },
]

/** The magic recipients and what each one simulates. */
function MagicRecipients() {
  return (
    <section aria-labelledby="magic">
      <h2 id="magic">Magic recipients</h2>
      <StackTable columns={RECIPIENT_COLUMNS} rows={RECIPIENT_ROWS} />
    </section>
  )
}

/** The send form's labels for the API's field names. */
const SEND_WORDS: FormWords = {
  fromPhoneId: { label: "From phone", sentences: [[/must be the sender/, "From phone must be one of this account's phones"]] },
  to: { label: "To", sentences: [[/^to must be/, "To must be a phone number (+ and 8–15 digits), a group JID or a …@lid JID"]] },
  content: { label: "Content", sentences: [[/is required/, "Content is required"]] },
}

interface SendForm {
  keyId: string
  fromPhoneId: string
  to: string
  content: string
}

/** The send form: from which phone, as which test key, to whom, what. */
function SendFormView(props: { scope: Scope; csrfToken: string; values: SendForm; keys: ApiKeyRow[]; phones: PhoneRow[] }) {
  const { scope, values, keys, phones } = props
  const csrf = props.csrfToken
  return (
    <form method="post" action={href("/dashboard/sandbox", scope)} class="fields">
      <CsrfField token={csrf} />
      <PhoneSelect id="send-from" label="From phone" phones={phones} selected={values.fromPhoneId} />
      <KeySelect id="send-key" label="Send as key" keys={keys} selected={values.keyId} />
      <div>
        <label for="send-to">To</label>
        <input id="send-to" name="to" type="text" required list="magic-recipients" value={values.to} />
        <datalist id="magic-recipients">
          {Object.keys(SANDBOX_RECIPIENTS).map((n) => (
            <option value={n} />
          ))}
        </datalist>
      </div>
      <div>
        <label for="send-content">Content</label>
        <textarea id="send-content" name="content" rows={3} maxlength={4096}>
          {values.content}
        </textarea>
      </div>
      <div>
        <button type="submit">Send test message</button>
      </div>
    </form>
  )
}

/** The Sandbox page; `simulate` carries the simulation forms' refusal or notice (pages/sandbox-simulate.tsx). */
export async function sandboxPage(c: PageContext, options: { errors?: string[]; values?: SendForm; status?: number; simulate?: SimulateState } = {}): Promise<Response> {
  const scope = { ...c.scope, env: "test" as const }
  const account = scope.account
  const ctx = c.dash.deps.ctx
  const csrf = c.session.csrfToken
  const nowMs = ctx.clock.nowMs()
  const keys = account
    ? (await listApiKeys(ctx, account.id)).filter(
        (k) => k.env === "test" && isActiveKey(k, nowMs) && hasAnyScope(k.scopes, REQUIRED_SCOPES.send),
      )
    : []
  const phones = account ? await listPhones(ctx, account.id) : []
  const values = options.values ?? { keyId: keys[0]?.id ?? "", fromPhoneId: phones[0]?.id ?? "", to: "+14155550199", content: "Hello from the sandbox" }
  return htmlResponse(
    <Layout title="Sandbox" section="Sandbox" scope={scope} csrfToken={csrf} path="/dashboard/sandbox">
      {!account ? (
        <NoAccount scopeHref={href("/dashboard/accounts", scope)} />
      ) : (
        <>
          <section aria-labelledby="send-test">
            <h2 id="send-test">Send a test message</h2>
            <p class="muted">Sandbox messages never reach WhatsApp: they move through their statuses by themselves. Any phone of the account can send, paired or not.</p>
            <ErrorList errors={options.errors} />
            {keys.length === 0 || phones.length === 0 ? (
              <p>
                {"A test message needs a phone and an active test key with messages:send. "}
                <a href={href(phones.length === 0 ? "/dashboard/phones" : "/dashboard/keys", scope)}>{phones.length === 0 ? "Add a phone" : "Create a test key"}</a>
                {" first."}
              </p>
            ) : (
              <SendFormView scope={scope} csrfToken={csrf} values={values} keys={keys} phones={phones} />
            )}
          </section>
          <SimulateForms scope={scope} csrfToken={csrf} keys={keys} phones={phones} state={options.simulate} />
          <MagicRecipients />
        </>
      )}
    </Layout>,
    options.status ?? 200,
  )
}

async function sendTest(c: PageContext): Promise<Response> {
  const values: SendForm = { keyId: c.form.get("keyId"), fromPhoneId: c.form.get("fromPhoneId"), to: c.form.get("to").trim(), content: c.form.get("content") }
  try {
    const principal = await principalOfKey(c.dash.deps.ctx, values.keyId)
    // Only the account's own test keys: the sandbox page never sends live traffic.
    if (principal.env !== "test" || principal.accountId !== c.scope.account?.id) throw errors.validation(["Pick a test key of this account"])
    const input = validated(SendMessageBody, { fromPhoneId: values.fromPhoneId, to: values.to, content: values.content })
    const { message } = await sendMessage(c.dash.deps.ctx, { sandbox: c.dash.deps.sandbox, live: c.dash.deps.live }, principal, input)
    // The key sent this message, as it would over the API: its last use moves (the API's request counts do not).
    c.dash.deps.usage.recordKeyUse(principal)
    return redirect(href(`/dashboard/messages/${encodeURIComponent(message.id)}`, { account: c.scope.account, env: "test" }))
  } catch (err) {
    return formFailure(err, (failure) => sandboxPage(c, { ...failure, values }), { words: SEND_WORDS })
  }
}

/** The sandbox: send a test message to any recipient, the magic ones explained, and follow it live. */
export const sandboxRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  app.get("/dashboard/sandbox", page(dash, (c) => sandboxPage(c), errorPage)).post("/dashboard/sandbox", action(dash, sendTest, errorPage))
