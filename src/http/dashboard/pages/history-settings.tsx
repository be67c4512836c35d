import { setHistorySettings } from "../../../domain/history-settings"
import { findPhoneAnywhere } from "../../../domain/phones"
import { AppError } from "../../../lib/errors"
import { HistorySettingsBody } from "../../models/history-settings"
import type { DashboardApp } from "../base"
import { action, validated, type Dashboard } from "../context"
import { redirect } from "../respond"
import { href } from "../scope"
import { errorPage } from "./errors"
import { phonePage } from "./phone"

/**
 * The history form of a phone's page (CSRF-checked by `action`): checked by the admin API's own
 * schema (PUT /admin/v1/phones/{phoneId}/history-settings) and saved by the same domain function;
 * a refused value shows the page again with why and what was typed.
 */
export const historySettingsRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  app.post(
    "/dashboard/phones/:phoneId/history-settings",
    action(
      dash,
      async (c) => {
        const phone = await findPhoneAnywhere(dash.deps.ctx, c.params.phoneId!)
        const values = { historySync: String(c.form.get("historySync") ?? ""), historyDays: String(c.form.get("historyDays") ?? "").trim() }
        try {
          // A whole number is sent as one; anything else as typed, so the schema names the field.
          const days = /^[0-9]{1,9}$/.test(values.historyDays) ? Number(values.historyDays) : values.historyDays
          await setHistorySettings(dash.deps.ctx, phone.id, validated(HistorySettingsBody, { historySync: values.historySync, historyDays: days }))
        } catch (err) {
          if (!(err instanceof AppError) || err.kind !== "bad_request") throw err
          return phonePage(c, undefined, undefined, { values, errors: err.publicMessages })
        }
        return redirect(href(`/dashboard/phones/${encodeURIComponent(phone.id)}`, c.scope))
      },
      errorPage,
    ),
  )
