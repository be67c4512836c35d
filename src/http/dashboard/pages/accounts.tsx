import { createAccount, getAccount, updateAccount } from "../../../domain/accounts"
import type { AccountRow } from "../../../store/accounts"
import { CreateAccountBody, UpdateAccountBody } from "../../models/admin"
import type { DashboardApp } from "../base"
import { action, formFailure, page, validated, type Dashboard, type FormWords, type PageContext } from "../context"
import { htmlResponse, redirect } from "../respond"
import { href, type Scope } from "../scope"
import { CsrfField, Layout } from "../views/layout"
import { Clip, ErrorList, Notice, StackTable, Time, type Column } from "../views/parts"
import { errorPage } from "./errors"

function AccountsTable(props: { accounts: AccountRow[]; scope: Scope; defaultRate: number }) {
  if (props.accounts.length === 0) return <p class="muted">No accounts yet. Create one below.</p>
  const columns: Column<AccountRow>[] = [
    {
      label: "Name",
      cell: (a) => (
        <>
          <a href={href(`/dashboard/accounts/${encodeURIComponent(a.id)}`, { account: a, env: props.scope.env })}>
            <Clip text={a.name} />
          </a>
          {a.id === props.scope.account?.id ? <span class="muted"> (selected)</span> : null}
        </>
      ),
    },
    { label: "E-mail", cell: (a) => <Clip text={a.email} /> },
    { label: "Subscription", cell: (a) => <span class={`badge ${a.subscriptionStatus === "active" ? "ok" : "bad"}`}>{a.subscriptionStatus}</span> },
    { label: "Rate limit", cell: (a) => (a.rateLimitPerMinute === null ? `${props.defaultRate}/min (default)` : `${a.rateLimitPerMinute}/min`) },
    { label: "Created", cell: (a) => <Time ms={a.createdAtMs} /> },
  ]
  return <StackTable columns={columns} rows={props.accounts} />
}

/** The account forms' labels for the API's field names. */
const ACCOUNT_WORDS: FormWords = {
  name: { label: "Name" },
  email: { label: "E-mail" },
  subscriptionStatus: { label: "Subscription status" },
  rateLimitPerMinute: {
    label: "Rate limit per key",
    sentences: [[/must be/, "Rate limit per key must be a whole number from 1 to 1000000, or empty for the server default"]],
  },
}

interface AccountForm {
  name: string
  email: string
}

function accountsPage(c: PageContext, options: { errors?: string[]; values?: AccountForm; status?: number } = {}): Response {
  const { scope } = c
  const csrf = c.session.csrfToken
  return htmlResponse(
    <Layout title="Accounts" section="Accounts" scope={scope} csrfToken={csrf} path="/dashboard/accounts">
      <section aria-labelledby="accounts-list">
        <h2 id="accounts-list">Accounts</h2>
        <AccountsTable accounts={scope.accounts} scope={scope} defaultRate={c.dash.deps.ctx.config.rateLimitPerMinute} />
      </section>
      <section aria-labelledby="create-account">
        <h2 id="create-account">Create an account</h2>
        <ErrorList errors={options.errors} />
        <form method="post" action={href("/dashboard/accounts", scope)} class="fields">
          <CsrfField token={csrf} />
          <div>
            <label for="account-name">Name</label>
            <input id="account-name" name="name" type="text" required maxlength={200} value={options.values?.name ?? ""} />
          </div>
          <div>
            <label for="account-email">E-mail</label>
            <input id="account-email" name="email" type="email" required maxlength={320} value={options.values?.email ?? ""} />
          </div>
          <div>
            <button type="submit">Create account</button>
          </div>
        </form>
      </section>
    </Layout>,
    options.status ?? 200,
  )
}

interface EditForm {
  name: string
  email: string
  subscriptionStatus: string
  rateLimitPerMinute: string
}

async function accountPage(c: PageContext, options: { errors?: string[]; values?: EditForm; status?: number; saved?: boolean } = {}): Promise<Response> {
  const account = await getAccount(c.dash.deps.ctx, c.params.accountId!)
  const scope = { ...c.scope, account, unknownAccount: false }
  const csrf = c.session.csrfToken
  const values = options.values ?? {
    name: account.name,
    email: account.email,
    subscriptionStatus: account.subscriptionStatus,
    rateLimitPerMinute: account.rateLimitPerMinute === null ? "" : String(account.rateLimitPerMinute),
  }
  const path = `/dashboard/accounts/${encodeURIComponent(account.id)}`
  return htmlResponse(
    <Layout title={account.name} section="Accounts" scope={scope} csrfToken={csrf} path="/dashboard/accounts">
      <p>
        <a href={href("/dashboard/accounts", scope)}>← All accounts</a>
      </p>
      <Notice text={options.saved ? "Saved." : null} />
      <section aria-labelledby="edit-account">
        <h2 id="edit-account">Edit account</h2>
        <p class="muted">
          Id: <code>{account.id}</code>
        </p>
        <ErrorList errors={options.errors} />
        <form method="post" action={href(path, scope)} class="fields">
          <CsrfField token={csrf} />
          <div>
            <label for="edit-name">Name</label>
            <input id="edit-name" name="name" type="text" required maxlength={200} value={values.name} />
          </div>
          <div>
            <label for="edit-email">E-mail</label>
            <input id="edit-email" name="email" type="email" required maxlength={320} value={values.email} />
          </div>
          <div>
            <label for="edit-subscription">Subscription status</label>
            <select id="edit-subscription" name="subscriptionStatus">
              <option value="active" selected={values.subscriptionStatus === "active"}>
                active (live keys work)
              </option>
              <option value="inactive" selected={values.subscriptionStatus === "inactive"}>
                inactive (live keys are refused)
              </option>
            </select>
          </div>
          <div>
            <label for="edit-rate">Rate limit per key (requests per minute)</label>
            <input id="edit-rate" name="rateLimitPerMinute" type="number" min={1} max={1000000} step={1} value={values.rateLimitPerMinute} />
            <p class="muted">{`Empty: the server default (${c.dash.deps.ctx.config.rateLimitPerMinute}/min).`}</p>
          </div>
          <div>
            <button type="submit">Save account</button>
          </div>
        </form>
      </section>
    </Layout>,
    options.status ?? 200,
  )
}

/** Form text as the admin API's JSON value: exact integers become numbers, empty means the default. */
function rateLimitValue(text: string): number | string | null {
  const trimmed = text.trim()
  if (trimmed === "") return null
  return /^\d{1,15}$/.test(trimmed) ? Number(trimmed) : trimmed
}

/** Accounts: list, create, and edit name, e-mail, subscription status and rate limit. */
export const accountsRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  app
    .get("/dashboard/accounts", page(dash, (c) => accountsPage(c), errorPage))
    .get("/dashboard/accounts/:accountId", page(dash, (c) => accountPage(c, { saved: c.url.searchParams.get("saved") === "1" }), errorPage))
    .post(
      "/dashboard/accounts",
      action(
        dash,
        async (c) => {
          const values = { name: c.form.get("name"), email: c.form.get("email") }
          try {
            const input = validated(CreateAccountBody, { name: values.name.trim(), email: values.email.trim() })
            const account = await createAccount(c.dash.deps.ctx, input.name, input.email)
            return redirect(href(`/dashboard/accounts/${encodeURIComponent(account.id)}`, { account, env: c.scope.env }))
          } catch (err) {
            return formFailure(err, (failure) => accountsPage(c, { ...failure, values }), { words: ACCOUNT_WORDS })
          }
        },
        errorPage,
      ),
    )
    .post(
      "/dashboard/accounts/:accountId",
      action(
        dash,
        async (c) => {
          const values: EditForm = {
            name: c.form.get("name"),
            email: c.form.get("email"),
            subscriptionStatus: c.form.get("subscriptionStatus"),
            rateLimitPerMinute: c.form.get("rateLimitPerMinute"),
          }
          try {
            const input = validated(UpdateAccountBody, {
              name: values.name.trim(),
              email: values.email.trim(),
              subscriptionStatus: values.subscriptionStatus,
              rateLimitPerMinute: rateLimitValue(values.rateLimitPerMinute),
            })
            const account = await updateAccount(c.dash.deps.ctx, c.params.accountId!, input)
            return redirect(href(`/dashboard/accounts/${encodeURIComponent(account.id)}`, { account, env: c.scope.env }, { saved: "1" }))
          } catch (err) {
            return formFailure(err, (failure) => accountPage(c, { ...failure, values }), { words: ACCOUNT_WORDS, passOn: "not_found" })
          }
        },
        errorPage,
      ),
    )
