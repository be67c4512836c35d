import { setCallPolicy } from "../../../domain/call-actions"
import { findPhoneAnywhere } from "../../../domain/phones"
import { AppError } from "../../../lib/errors"
import type { DashboardApp } from "../base"
import { action, type Dashboard } from "../context"
import { redirect } from "../respond"
import { href } from "../scope"
import { errorPage } from "./errors"
import { phonePage } from "./phone"

/**
 * The call policy form of a phone's page (CSRF-checked by `action`): saved as the admin API saves
 * it; a refused text shows the page again with the message and what was typed.
 */
export const callPolicyRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  app.post(
    "/dashboard/phones/:phoneId/call-policy",
    action(
      dash,
      async (c) => {
        const phone = await findPhoneAnywhere(dash.deps.ctx, c.params.phoneId!)
        const values = { rejectCalls: c.form.get("rejectCalls") === "on", replyText: String(c.form.get("replyText") ?? "") }
        try {
          await setCallPolicy(dash.deps.ctx, phone.id, values)
        } catch (err) {
          if (!(err instanceof AppError) || err.kind !== "bad_request") throw err
          return phonePage(c, undefined, { values, errors: err.publicMessages })
        }
        return redirect(href(`/dashboard/phones/${encodeURIComponent(phone.id)}`, c.scope))
      },
      errorPage,
    ),
  )
