import { Elysia } from "elysia"
import { readRawBody } from "../plugins/body"
import { assetResponse } from "./assets"
import { redirect, refusal } from "./respond"

/**
 * The dashboard's Elysia instance: form bodies are read raw (at most 64 KB) and parsed by the
 * action wrapper after the request is admitted; `/` leads to the dashboard; assets are served
 * from the executable.
 */
export function dashboardBase() {
  // Pages, not API: left out of the OpenAPI document.
  return new Elysia({ name: "wagate.dashboard", detail: { hide: true } })
    .onParse(readRawBody)
    .get("/", () => redirect("/dashboard"))
    .get("/dashboard/assets/:name", ({ request }) => assetResponse(new URL(request.url).pathname) ?? refusal(404, "No such asset."))
}

/** The instance dashboard pages register their routes on. */
export type DashboardApp = ReturnType<typeof dashboardBase>
