import { verifyAdminToken } from "../../../domain/admin"
import { endDashboardSession, startDashboardSession } from "../../../domain/dashboard-sessions"
import type { DashboardApp } from "../base"
import { errors } from "../../../lib/errors"
import { refuseAuthentication } from "../../plugins/failed-auth"
import { action, Form, type Dashboard } from "../context"
import { htmlResponse, redirect, refusal } from "../respond"
import { clearedSessionCookie, isSameOrigin, sessionCookie, sessionOf } from "../session"
import { BareLayout } from "../views/layout"
import { ErrorList } from "../views/parts"
import { errorPage } from "./errors"

/** Where to go after signing in: a dashboard path from `next`, never another site. */
function safeNext(next: string | null): string {
  return next && next.startsWith("/dashboard") && !next.startsWith("//") && !next.includes("\\") ? next : "/dashboard"
}

function SignInPage(props: { next: string; errors?: string[] }) {
  return (
    <BareLayout title="Sign in">
      <h1>wagate</h1>
      <section>
        <h2>Sign in</h2>
        <ErrorList errors={props.errors} />
        <form method="post" action="/dashboard/sign-in" class="fields">
          <input type="hidden" name="next" value={props.next} />
          <div>
            <label for="admin-token">Admin token</label>
            <input id="admin-token" name="token" type="password" autocomplete="current-password" required autofocus />
          </div>
          <p class="muted">
            The admin token was printed at the first start. <code>wagate admin-token reset</code> makes a new one.
          </p>
          <div>
            <button type="submit">Sign in</button>
          </div>
        </form>
      </section>
    </BareLayout>
  )
}

/** Sign-in with the admin token (throttled per client address), and sign-out. */
export const signInRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  app
    .get("/dashboard/sign-in", async ({ request }) => {
      const url = new URL(request.url)
      if (await sessionOf(dash.deps.ctx, request)) return redirect(safeNext(url.searchParams.get("next")))
      return htmlResponse(<SignInPage next={safeNext(url.searchParams.get("next"))} />)
    })
    .post("/dashboard/sign-in", async ({ request, body, server }) => {
      // No session yet, so no CSRF token: the same-origin check stops a cross-site login.
      if (!isSameOrigin(request)) return refusal(403, "Refused: this request did not come from a dashboard page of this origin.")
      const { ctx, limiter, metrics } = dash.deps
      const form = Form.of(body)
      const next = safeNext(form.get("next"))
      const client = dash.client(server, request)
      // Once an address has failed too often, even the right token waits: a guess that happens
      // to be right must not be told apart from a wrong one.
      const attempt = limiter.peekFailedAuth("admin_token", client.ip)
      if (!attempt.allowed) {
        metrics.rateLimitRejections.inc({ limiter: "failed_auth" })
        const retryAfterSeconds = Math.max(1, Math.ceil(attempt.retryAfterMs / 1000))
        return htmlResponse(<SignInPage next={next} errors={[`Too many failed sign-ins from your address. Try again in ${retryAfterSeconds} s.`]} />, 429, {
          "Retry-After": String(retryAfterSeconds),
        })
      }
      if (!await verifyAdminToken(ctx, form.get("token").trim(), dash.deps.localAdminToken)) {
        // Counted against the admin token's failed-authentication budget, shared with /admin/v1 and /metrics.
        refuseAuthentication(dash.deps, "admin_token", server, request, errors.missingAdminToken())
        return htmlResponse(<SignInPage next={next} errors={["That is not the admin token."]} />, 401)
      }
      const session = await startDashboardSession(ctx)
      return redirect(next, { "Set-Cookie": sessionCookie(session.id, client.secure) })
    })
    .post(
      "/dashboard/sign-out",
      action(
        dash,
        async (c) => {
          await endDashboardSession(dash.deps.ctx, c.session)
          return redirect("/dashboard/sign-in", { "Set-Cookie": clearedSessionCookie(dash.client(c.server, c.request).secure) })
        },
        errorPage,
      ),
    )
