import { findPhoneAnywhere } from "../../../domain/phones"
import { AppError } from "../../../lib/errors"
import type { PairingState } from "../../../domain/sessions"
import type { PhoneRow } from "../../../store/phones"
import { isDashboardSessionLive } from "../../../domain/dashboard-sessions"
import type { DashboardApp } from "../base"
import { action, page, type Dashboard, type PageContext } from "../context"
import { liveHtmlResponse } from "../live"
import { htmlResponse, redirect, renderFragment } from "../respond"
import { href, type Scope } from "../scope"
import { Layout } from "../views/layout"
import { ErrorList, Time } from "../views/parts"
import { PairingPanel } from "../views/phones"
import { BlockListSection, type BlockListState } from "../views/blocks"
import { errorPage } from "./errors"
import { statusOf } from "../../errors"
import { onHolder, type AdminCall } from "../on-holder"
import { getCallPolicy } from "../../../domain/call-actions"
import { CallPolicySection, type CallPolicyValues } from "../views/call-policy"
import { getHistorySettings } from "../../../domain/history-settings"
import { HistorySettingsSection, type HistoryValues } from "../views/history-settings"

/**
 * The QR as an SVG drawing, made by the `qrcode` library from WhatsApp's string. The library
 * (with its PNG and zlib code) is imported when a QR is first drawn, not at every start
 * (docs/performance.md § "Start-up and sends, 2026-11-23 (evening)").
 */
async function qrSvg(qr: string | null): Promise<string | null> {
  if (!qr) return null
  const QRCode = await import("qrcode")
  return QRCode.toString(qr, { type: "svg", margin: 1, errorCorrectionLevel: "L" })
}

/** The phone of the URL, with the scope moved to its account (a shared link needs no `?account=`). */
async function phoneInScope(c: PageContext): Promise<{ phone: PhoneRow; scope: Scope }> {
  const phone = await findPhoneAnywhere(c.dash.deps.ctx, c.params.phoneId!)
  const account = c.scope.accounts.find((a) => a.id === phone.accountId) ?? c.scope.account
  return { phone, scope: { ...c.scope, account, unknownAccount: false } }
}

async function panelHtml(c: PageContext, phone: PhoneRow, scope: Scope, state: PairingState): Promise<string> {
  return renderFragment(
    <PairingPanel phone={phone} state={state} qrSvg={await qrSvg(state.qr)} scope={scope} csrfToken={c.session.csrfToken} />,
  )
}

/** What an action on the phone's session that was refused shows above the connection panel. */
interface ActionFailure {
  errors: readonly string[]
  status: number
  /** A refused block or unblock shows its reasons in the block list's section instead. */
  blocks?: boolean
}

/** The phone's block list as WhatsApp has it, or why it cannot be read now. */
async function blockListOf(c: PageContext, phone: PhoneRow): Promise<BlockListState> {
  if (phone.connectionStatus !== "connected") return { unavailable: "Connect the phone to see and change its block list." }
  try {
    return { contacts: await c.dash.deps.contactBlocks.phoneList(phone.id) }
  } catch (err) {
    if (err instanceof AppError) return { unavailable: err.publicMessages.join(" ") }
    throw err
  }
}

/** A phone in these states holds a linking: history settings wait for the next one. */
const LINKED = new Set(["connecting", "connected", "disconnected"])

/** The phone's page; `policy` and `history` are a refused form, shown again with why. */
export async function phonePage(
  c: PageContext,
  failure?: ActionFailure,
  policy?: { values: CallPolicyValues; errors: readonly string[] },
  history?: { values: HistoryValues; errors: readonly string[] },
): Promise<Response> {
  const { phone, scope } = await phoneInScope(c)
  const state = await c.dash.deps.sessions.pairingState(phone.id)
  const base = `/dashboard/phones/${encodeURIComponent(phone.id)}`
  return htmlResponse(
    <Layout title={phone.displayName} section="Phones" scope={scope} csrfToken={c.session.csrfToken} path="/dashboard/phones">
      <p>
        <a href={href("/dashboard/phones", scope)}>← All phones</a>
      </p>
      <section aria-labelledby="phone-facts">
        <h2 id="phone-facts">Phone</h2>
        <dl class="facts stack-narrow">
          <dt>Number</dt>
          <dd>{phone.phoneNumber}</dd>
          <dt>Id</dt>
          <dd>
            <code>{phone.id}</code>
          </dd>
          <dt>Last connected</dt>
          <dd>
            <Time ms={phone.lastConnectedAtMs} />
          </dd>
          <dt>Last disconnected</dt>
          <dd>
            <Time ms={phone.lastDisconnectedAtMs} />
          </dd>
        </dl>
        <p>
          <a href={href(`${base}/chats`, scope)}>Chats</a>
          {" · "}
          <a href={href(`${base}/groups`, scope)}>{scope.env === "test" ? "Sandbox groups" : "Groups"}</a>
        </p>
      </section>
      <section aria-labelledby="connection">
        <h2 id="connection">Connection</h2>
        <ErrorList errors={failure?.blocks ? undefined : failure?.errors} />
        <div data-live={href(`${base}/live`, scope)} aria-live="polite">
          <PairingPanel
            phone={phone}
            state={state}
            qrSvg={await qrSvg(state.qr)}
            scope={scope}
            csrfToken={c.session.csrfToken}
          />
        </div>
      </section>
      <HistorySettingsSection phoneId={phone.id} settings={await getHistorySettings(c.dash.deps.ctx, phone.id)} linked={LINKED.has(phone.connectionStatus)} values={history?.values} errors={history?.errors} scope={scope} csrfToken={c.session.csrfToken} />
      <CallPolicySection phoneId={phone.id} policy={await getCallPolicy(c.dash.deps.ctx, phone.id)} values={policy?.values} errors={policy?.errors} scope={scope} csrfToken={c.session.csrfToken} />
      <BlockListSection phoneId={phone.id} state={await blockListOf(c, phone)} scope={scope} csrfToken={c.session.csrfToken} errors={failure?.blocks ? failure.errors : undefined} />
    </Layout>,
    policy || history ? 400 : failure?.status,
  )
}

/**
 * A button on the phone's page: acts on the phone's session, then shows the page again. With
 * several nodes, a phone held by another node has it done there (`onHolder`). A refusal shows the
 * page with why, above the live panel, which keeps following the phone.
 */
function sessionAction(dash: Dashboard, act: (phoneId: string, c: PageContext) => Promise<unknown>, asAdmin: (phoneId: string, c: PageContext) => Omit<AdminCall, "method">) {
  return action(
    dash,
    async (c) => {
      const { phone, scope } = await phoneInScope(c)
      try {
        await act(phone.id, c)
      } catch (err) {
        if (!(err instanceof AppError)) throw err
        const failure = await onHolder(dash, err, c.request, { method: "POST", ...asAdmin(phone.id, c) })
        if (failure !== null) return phonePage(c, failure)
      }
      return redirect(href(`/dashboard/phones/${encodeURIComponent(phone.id)}`, scope))
    },
    errorPage,
  )
}

/** Blocks or unblocks the form's contact on WhatsApp, then shows the page again; a refusal shows why in the block list's section. */
function blockAction(dash: Dashboard, blocked: boolean) {
  return action(
    dash,
    async (c) => {
      const { phone, scope } = await phoneInScope(c)
      try {
        await dash.deps.contactBlocks.setOnPhone(phone.id, String(c.form.get("contact") ?? "").trim(), blocked)
      } catch (err) {
        if (!(err instanceof AppError)) throw err
        return phonePage(c, { errors: err.publicMessages, status: statusOf(err.kind), blocks: true })
      }
      return redirect(href(`/dashboard/phones/${encodeURIComponent(phone.id)}`, scope))
    },
    errorPage,
  )
}

const adminPathOf = (phoneId: string, verb: string) => `/admin/v1/phones/${encodeURIComponent(phoneId)}/${verb}`
const methodOf = (c: PageContext) => (c.form.get("method") === "code" ? "code" : "qr")

/** A phone's page: live connection state, pairing by QR or code, disconnect and log out. */
export const phoneRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  app
    .get("/dashboard/phones/:phoneId", page(dash, phonePage, errorPage))
    .get(
      "/dashboard/phones/:phoneId/live",
      page(
        dash,
        async (c) => {
          const { phone, scope } = await phoneInScope(c)
          const sessions = dash.deps.sessions
          return liveHtmlResponse(dash.deps.ctx.clock, c.request, (push) => {
            // Rendering a QR is asynchronous: a chain keeps the fragments in the order of the states.
            let chain = Promise.resolve()
            const send = (state: PairingState) => {
              // A phone removed meanwhile has no panel left to show; its stream just goes quiet.
              chain = chain.then(async () => panelHtml(c, await findPhoneAnywhere(dash.deps.ctx, phone.id), scope, state).then(push)).catch(() => {})
            }
            const unsubscribe = sessions.subscribe(phone.id, send)
            // The state may have moved between the page's render and this subscription.
            void sessions.pairingState(phone.id).then(send, () => {})
            return unsubscribe
          }, () => isDashboardSessionLive(dash.deps.ctx, c.session))
        },
        errorPage,
      ),
    )
    .post(
      "/dashboard/phones/:phoneId/connect",
      sessionAction(
        dash,
        (phoneId, c) => dash.deps.sessions.connect(phoneId, methodOf(c)),
        (phoneId, c) => ({ pathAndQuery: adminPathOf(phoneId, "connect"), body: JSON.stringify({ method: methodOf(c) }) }),
      ),
    )
    .post(
      "/dashboard/phones/:phoneId/disconnect",
      sessionAction(dash, (phoneId) => dash.deps.sessions.disconnect(phoneId), (phoneId) => ({ pathAndQuery: adminPathOf(phoneId, "disconnect"), body: "" })),
    )
    // Blocking from the phone's page (docs/dashboard.md § "Pages").
    .post("/dashboard/phones/:phoneId/block", blockAction(dash, true))
    .post("/dashboard/phones/:phoneId/unblock", blockAction(dash, false))
    .post(
      "/dashboard/phones/:phoneId/logout",
      sessionAction(dash, (phoneId) => dash.deps.sessions.logout(phoneId), (phoneId) => ({ pathAndQuery: adminPathOf(phoneId, "logout"), body: "" })),
    )
