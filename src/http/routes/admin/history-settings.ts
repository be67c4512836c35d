import { Type } from "@sinclair/typebox"
import { getHistorySettings, setHistorySettings } from "../../../domain/history-settings"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { HistorySettings, HistorySettingsBody, toHistorySettings } from "../../models/history-settings"
import { adminOperation } from "../../openapi/operation"
import type { AdminApp } from "../../plugins/admin-auth"
import { parseJsonBody, type RawBody } from "../../validation"

const PhoneIdParams = Type.Object({ phoneId: Type.String({ description: "The phone's id or E.164 number.", examples: ["ph_01jd0m3k7v5q9z8y6x4w2t0r1p"] }) })

/** A phone's history settings: read and set (docs/admin.md § "History on pairing"). */
export const adminHistorySettings = (deps: HttpDeps) => (app: AdminApp) =>
  app
    .get("/phones/:phoneId/history-settings", async ({ params }) => ok(toHistorySettings(await getHistorySettings(deps.ctx, params.phoneId))), {
      ...adminOperation({
        operationId: "getHistorySettings",
        tag: "Admin: history",
        summary: "How much chat history a phone asks for when paired",
        path: PhoneIdParams,
        success: { status: 200, schema: Envelope(HistorySettings), description: "The settings (recent and 90 days when none were set)" },
        errors: [401, 404, 429],
      }),
    })
    .put(
      "/phones/:phoneId/history-settings",
      async ({ body, params }) => ok(toHistorySettings(await setHistorySettings(deps.ctx, params.phoneId, parseJsonBody(HistorySettingsBody, body as RawBody)))),
      {
        ...adminOperation({
          operationId: "setHistorySettings",
          tag: "Admin: history",
          summary: "Set how much chat history a phone asks for when paired",
          description: "`historySync` none, recent (what WhatsApp Web gets) or full; `historyDays` 1..3650. Applies to the phone's next pairing.",
          path: PhoneIdParams,
          body: HistorySettingsBody,
          success: { status: 200, schema: Envelope(HistorySettings), description: "The settings now in force" },
          errors: [400, 401, 404, 413, 429],
        }),
      },
    )
