import { addPhone, findPhoneAnywhere, listPhones, removePhone } from "../../../domain/phones"
import { isE164 } from "../../../lib/formats"
import { isDashboardSessionLive } from "../../../domain/dashboard-sessions"
import type { DashboardApp } from "../base"
import { action, formFailure, page, type Dashboard, type FormWords, type PageContext } from "../context"
import { liveHtmlResponse } from "../live"
import { htmlResponse, redirect, renderFragment } from "../respond"
import { href } from "../scope"
import { CsrfField, Layout } from "../views/layout"
import { ErrorList, Notice } from "../views/parts"
import { PhonesTable, PhoneStatusList } from "../views/phones"
import { errorPage } from "./errors"
import { AppError } from "../../../lib/errors"
import { onHolder } from "../on-holder"

/** The add-phone form's labels for the API's field names. */
const PHONE_WORDS: FormWords = {
  phoneNumber: { label: "Phone number" },
  displayName: { label: "Display name" },
}

interface AddPhoneForm {
  phoneNumber: string
  displayName: string
}

async function phonesPage(c: PageContext, options: { errors?: string[]; values?: AddPhoneForm; status?: number } = {}): Promise<Response> {
  const { scope } = c
  const csrf = c.session.csrfToken
  const account = scope.account
  const phones = account ? await listPhones(c.dash.deps.ctx, account.id) : []
  // After a removal the list says which phone went; only a number is shown, so a crafted link
  // cannot put other words on the page.
  const removed = c.url.searchParams.get("removed") ?? ""
  return htmlResponse(
    <Layout title="Phones" section="Phones" scope={scope} csrfToken={csrf} path="/dashboard/phones">
      <Notice text={isE164(removed) ? `Removed ${removed}: it is unlinked and any queued sends failed; its messages are kept.` : null} />
      {account ? (
        <>
          <section aria-labelledby="phones-list">
            <h2 id="phones-list">{`Phones of ${account.name}`}</h2>
            <div data-live={href("/dashboard/phones/live", scope)} aria-live="polite">
              <PhonesTable phones={phones} scope={scope} csrfToken={csrf} />
            </div>
          </section>
          <section aria-labelledby="add-phone">
            <h2 id="add-phone">Add a phone</h2>
            <ErrorList errors={options.errors} />
            <form method="post" action={href("/dashboard/phones", scope)} class="fields">
              <CsrfField token={csrf} />
              <div>
                <label for="phone-number">Phone number</label>
                <input id="phone-number" name="phoneNumber" type="tel" required placeholder="+14155550123" value={options.values?.phoneNumber ?? ""} />
              </div>
              <div>
                <label for="display-name">Display name</label>
                <input id="display-name" name="displayName" type="text" maxlength={200} value={options.values?.displayName ?? ""} />
              </div>
              <div>
                <button type="submit">Add phone</button>
              </div>
            </form>
            <p class="muted">Test keys can send from a phone at once; live sends need it paired.</p>
          </section>
        </>
      ) : (
        <NoAccount scopeHref={href("/dashboard/accounts", scope)} />
      )}
    </Layout>,
    options.status ?? 200,
  )
}

/** What a page scoped to an account shows when there is none. */
export function NoAccount(props: { scopeHref: string }) {
  return (
    <p>
      There is no such account. <a href={props.scopeHref}>Create or pick an account</a> first.
    </p>
  )
}

/** The phones list (live), adding a phone and removing one. */
export const phonesRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  app
    .get("/dashboard/phones", page(dash, (c) => phonesPage(c), errorPage))
    .get(
      "/dashboard/phones/live",
      page(
        dash,
        (c) => {
          const account = c.scope.account
          // The overview shows the compact list, the phones page the table.
          const compact = c.url.searchParams.get("view") === "compact"
          const render = async () => {
            const phones = account ? await listPhones(c.dash.deps.ctx, account.id) : []
            return renderFragment(
              compact ? <PhoneStatusList phones={phones} scope={c.scope} /> : <PhonesTable phones={phones} scope={c.scope} csrfToken={c.session.csrfToken} />,
            )
          }
          return liveHtmlResponse(dash.deps.ctx.clock, c.request, (push) =>
            dash.deps.sessions.subscribeAll(async (phone) => {
              if (phone.accountId === account?.id) push(await render())
            }),
            () => isDashboardSessionLive(dash.deps.ctx, c.session),
          )
        },
        errorPage,
      ),
    )
    .post(
      "/dashboard/phones",
      action(
        dash,
        async (c) => {
          const values = { phoneNumber: c.form.get("phoneNumber").trim(), displayName: c.form.get("displayName") }
          if (!c.scope.account) return phonesPage(c, { errors: ["Pick an account first."], values, status: 400 })
          try {
            const phone = await addPhone(dash.deps.ctx, c.scope.account.id, values.phoneNumber, values.displayName)
            return redirect(href(`/dashboard/phones/${encodeURIComponent(phone.id)}`, c.scope))
          } catch (err) {
            return formFailure(err, (failure) => phonesPage(c, { ...failure, values }), { words: PHONE_WORDS })
          }
        },
        errorPage,
      ),
    )
    .post(
      "/dashboard/phones/:phoneId/remove",
      action(
        dash,
        async (c) => {
          const phone = await findPhoneAnywhere(dash.deps.ctx, c.params.phoneId!)
          // The same steps as the admin API's DELETE: unlink and fail queued sends, then remove.
          // A phone another node holds is unlinked and removed there (src/http/dashboard/on-holder.ts).
          try {
            await dash.deps.sessions.forget(phone.id)
            await removePhone(dash.deps.ctx, phone.id)
          } catch (err) {
            if (!(err instanceof AppError)) throw err
            const failure = await onHolder(dash, err, c.request, { method: "DELETE", pathAndQuery: `/admin/v1/phones/${encodeURIComponent(phone.id)}`, body: "" })
            if (failure !== null) return phonesPage(c, failure)
          }
          const account = c.scope.accounts.find((a) => a.id === phone.accountId) ?? c.scope.account
          return redirect(href("/dashboard/phones", { account, env: c.scope.env }, { removed: phone.phoneNumber }))
        },
        errorPage,
      ),
    )
