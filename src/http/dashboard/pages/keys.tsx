import { createApiKey, isActiveKey, listApiKeys, revokeApiKey } from "../../../domain/api-keys"
import { CANONICAL_SCOPES } from "../../../domain/scopes"
import { toIso } from "../../../lib/time"
import type { ApiKeyRow, Environment } from "../../../store/api-keys"
import { CreateKeyBody } from "../../models/admin"
import type { DashboardApp } from "../base"
import { action, formFailure, page, validated, type Dashboard, type FormWords, type PageContext } from "../context"
import { htmlResponse, redirect } from "../respond"
import { href, type Scope } from "../scope"
import { CsrfField, Layout } from "../views/layout"
import { Clip, ConfirmAction, ErrorList, SecretOnce, StackTable, Time, type Column } from "../views/parts"
import { errorPage } from "./errors"
import { NoAccount } from "./phones"

interface KeyState {
  word: string
  tone: "ok" | "bad"
}

function keyState(key: ApiKeyRow, nowMs: number): KeyState {
  if (isActiveKey(key, nowMs)) return { word: "Active", tone: "ok" }
  return { word: key.revokedAtMs !== null ? "Revoked" : "Expired", tone: "bad" }
}

function KeysTable(props: { keys: ApiKeyRow[]; scope: Scope; csrfToken: string; nowMs: number }) {
  if (props.keys.length === 0) return <p class="muted">{`No ${props.scope.env} keys yet.`}</p>
  const columns: Column<{ key: ApiKeyRow; state: KeyState }>[] = [
    { label: "Name", cell: ({ key }) => <Clip text={key.name} /> },
    // The list is of one environment (its heading says which), so the key's own is not repeated.
    { label: "Key", cell: ({ key }) => <Clip text={`${key.prefix}…${key.last4}`} code /> },
    { label: "Scopes", cell: ({ key }) => key.scopes.join(", ") },
    { label: "Created", cell: ({ key }) => <Time ms={key.createdAtMs} /> },
    { label: "Last used", cell: ({ key }) => <Time ms={key.lastUsedAtMs} /> },
    { label: "Expires", cell: ({ key }) => <Time ms={key.expiresAtMs} empty="never" /> },
    { label: "State", cell: ({ state }) => <span class={`badge ${state.tone}`}>{state.word}</span> },
    {
      label: "Actions",
      actions: true,
      cell: ({ key, state }) =>
        state.word === "Active" ? (
          <ConfirmAction
            label="Revoke"
            confirmLabel={`Revoke ${key.prefix}…${key.last4}`}
            action={href(`/dashboard/keys/${encodeURIComponent(key.id)}/revoke`, props.scope)}
            csrfToken={props.csrfToken}
          >
            <p>Requests with this key are refused from the next one on. This cannot be undone.</p>
          </ConfirmAction>
        ) : null,
    },
  ]
  return <StackTable columns={columns} rows={props.keys.map((key) => ({ key, state: keyState(key, props.nowMs) }))} />
}

/** The create-key form's labels for the API's field names. */
const KEY_WORDS: FormWords = {
  name: { label: "Name" },
  environment: { label: "Environment" },
  scopes: { label: "Scopes", sentences: [[/must be a non-empty|at least one/, "Scopes: tick at least one scope"]] },
  expiresAt: { label: "Expires", sentences: [[/ISO 8601/, "Expires must be a date and time (UTC), or empty for a key that never expires"]] },
}

interface CreateKeyForm {
  name: string
  environment: Environment
  scopes: string[]
  expiresAt: string
}

function CreateKeyFormView(props: { scope: Scope; csrfToken: string; values: CreateKeyForm; errors?: string[] }) {
  const { values } = props
  return (
    <section aria-labelledby="create-key">
      <h2 id="create-key">Create a key</h2>
      <ErrorList errors={props.errors} />
      <form method="post" action={href("/dashboard/keys", props.scope)} class="fields">
        <CsrfField token={props.csrfToken} />
        <div>
          <label for="key-name">Name</label>
          <input id="key-name" name="name" type="text" maxlength={200} value={values.name} />
        </div>
        <fieldset>
          <legend>Environment</legend>
          <label>
            <input type="radio" name="environment" value="test" checked={values.environment === "test"} /> Test (sandbox, sk_test_…)
          </label>
          <label>
            <input type="radio" name="environment" value="live" checked={values.environment === "live"} /> Live (real WhatsApp, sk_live_…)
          </label>
        </fieldset>
        <fieldset>
          <legend>Scopes</legend>
          {CANONICAL_SCOPES.map((scope) => (
            <label>
              <input type="checkbox" name="scopes" value={scope} checked={values.scopes.includes(scope)} /> {scope}
            </label>
          ))}
        </fieldset>
        <div>
          <label for="key-expiry">Expires (UTC, optional)</label>
          <input id="key-expiry" name="expiresAt" type="datetime-local" value={values.expiresAt} />
        </div>
        <div>
          <button type="submit">Create key</button>
        </div>
      </form>
    </section>
  )
}

async function keysPage(
  c: PageContext,
  options: { created?: { key: string; row: ApiKeyRow }; errors?: string[]; values?: CreateKeyForm; status?: number } = {},
): Promise<Response> {
  const { scope } = c
  const csrf = c.session.csrfToken
  const account = scope.account
  const keys = account ? (await listApiKeys(c.dash.deps.ctx, account.id)).filter((k) => k.env === scope.env) : []
  const values = options.values ?? { name: "", environment: scope.env, scopes: [...CANONICAL_SCOPES], expiresAt: "" }
  return htmlResponse(
    <Layout title="Keys" section="Keys" scope={scope} csrfToken={csrf} path="/dashboard/keys" envScoped>
      {account ? (
        <>
          {options.created ? (
            <SecretOnce title={`New ${options.created.row.env} key: ${options.created.row.name}`} id="new-key" secret={options.created.key} copyLabel="Copy key" />
          ) : null}
          <section aria-labelledby="keys-list">
            <h2 id="keys-list">{`${scope.env === "test" ? "Test" : "Live"} keys of ${account.name}`}</h2>
            <KeysTable keys={keys} scope={scope} csrfToken={csrf} nowMs={c.dash.deps.ctx.clock.nowMs()} />
          </section>
          <CreateKeyFormView scope={scope} csrfToken={csrf} values={values} errors={options.errors} />
        </>
      ) : (
        <NoAccount scopeHref={href("/dashboard/accounts", scope)} />
      )}
    </Layout>,
    options.status ?? 200,
  )
}

/** A `datetime-local` value (no zone; the form says UTC) as an ISO timestamp, or the text as typed. */
function expiryIso(value: string): string | undefined {
  if (value.trim() === "") return undefined
  const ms = Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`)
  return Number.isNaN(ms) ? value : toIso(ms)
}

async function createKey(c: PageContext): Promise<Response> {
  const environment: Environment = c.form.get("environment") === "live" ? "live" : "test"
  const values: CreateKeyForm = { name: c.form.get("name"), environment, scopes: c.form.all("scopes"), expiresAt: c.form.get("expiresAt") }
  // The key is shown in the environment it was made for.
  const scope = { ...c.scope, env: environment }
  if (!scope.account) return keysPage({ ...c, scope }, { errors: ["Pick an account first."], values, status: 400 })
  try {
    const name = values.name.trim()
    const input = validated(CreateKeyBody, {
      environment,
      scopes: values.scopes,
      ...(name ? { name } : {}),
      ...(expiryIso(values.expiresAt) !== undefined ? { expiresAt: expiryIso(values.expiresAt) } : {}),
    })
    const created = await createApiKey(c.dash.deps.ctx, {
      accountId: scope.account.id,
      env: input.environment,
      scopes: input.scopes,
      name: input.name,
      expiresAtMs: input.expiresAt === undefined ? null : Date.parse(input.expiresAt),
    })
    // Rendered, not redirected: the key must never sit in a URL or a page that can be fetched again.
    return keysPage({ ...c, scope }, { created, status: 201 })
  } catch (err) {
    return formFailure(err, (failure) => keysPage({ ...c, scope }, { ...failure, values }), { words: KEY_WORDS })
  }
}

/** API keys: list per environment, create (shown once), revoke with confirmation. */
export const keysRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  app
    .get("/dashboard/keys", page(dash, (c) => keysPage(c), errorPage))
    .post("/dashboard/keys", action(dash, createKey, errorPage))
    .post(
      "/dashboard/keys/:keyId/revoke",
      action(
        dash,
        async (c) => {
          const revoked = await revokeApiKey(c.dash.deps.ctx, c.params.keyId!)
          const account = c.scope.accounts.find((a) => a.id === revoked.accountId) ?? c.scope.account
          return redirect(href("/dashboard/keys", { account, env: revoked.env }))
        },
        errorPage,
      ),
    )
