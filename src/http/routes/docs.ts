import { swagger } from "@elysiajs/swagger"
import { Elysia } from "elysia"
// The package's `exports` do not list its browser bundle (its `browser` field names the file), and
// package.json `imports` may not point into node_modules, so tsconfig.json's `paths` (which Bun
// follows too) maps this name to it. `with { type: "file" }` embeds it in the executable.
import scalarBundlePath from "#scalar-api-reference-bundle" with { type: "file" }
import { buildOpenApiDocument, documentInfo, type DocumentedRoute } from "../openapi/document"
import type { JsonObject } from "../openapi/json-schema"

/** Where the page loads the reference UI from: our own origin, never a CDN. */
export const SCALAR_BUNDLE_PATH = "/swagger/assets/scalar-api-reference.js"

/**
 * The Scalar page's settings, chosen so that it makes no request beyond our origin: no web fonts
 * (they come from fonts.scalar.com), no telemetry, no AI agent, no developer toolbar. No `proxyUrl`
 * is set, so "Test request" calls the server directly (Scalar only uses its own proxy when told to).
 */
export const SCALAR_CONFIG = {
  spec: { url: "/swagger/json" },
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  showDeveloperTools: "never",
} as const

/**
 * The OpenAPI document at /swagger/json (and /openapi.json), and its reference page at /swagger,
 * served by `@elysiajs/swagger` (docs/api.md, "OpenAPI"). The plugin's own document generator is
 * switched off (`exclude` matches every path); its content is our 3.1 document, built from the
 * routes' documentation on the first request (building it costs about 30 ms, which start-up does
 * not pay) and kept.
 */
export function docsRoutes(options: { version: string; routes: () => readonly DocumentedRoute[] }) {
  let built: JsonObject | undefined
  const document = (): JsonObject => (built ??= buildOpenApiDocument({ version: options.version, routes: options.routes() }))
  // The plugin spreads `documentation` into every response it sends, so each getter runs per
  // request and the document is built on the first one. `info` is read when the plugin is created
  // (the page's title), so it is the one key known up front.
  const documentation = {
    get openapi() {
      return document().openapi
    },
    info: documentInfo(options.version),
    get servers() {
      return document().servers
    },
    get tags() {
      return document().tags
    },
    get paths() {
      return document().paths
    },
    get webhooks() {
      return document().webhooks
    },
    get components() {
      return document().components
    },
  }
  const plugin = swagger({
    provider: "scalar",
    path: "/swagger",
    specPath: "/swagger/json",
    // The plugin's typings describe OpenAPI 3.0; the document is 3.1 (webhooks, type arrays).
    documentation: documentation as unknown as NonNullable<Parameters<typeof swagger>[0]>["documentation"],
    exclude: [/.*/],
    scalarCDN: SCALAR_BUNDLE_PATH,
    scalarConfig: SCALAR_CONFIG as unknown as NonNullable<Parameters<typeof swagger>[0]>["scalarConfig"],
  })
  const specRoute = plugin.routes.find((route) => route.path === "/swagger/json")
  if (!specRoute) throw new Error("@elysiajs/swagger registered no /swagger/json route")
  const specHandler = specRoute.handler as () => unknown
  return new Elysia({ name: "wagate.docs" })
    .use(plugin)
    // The alias answers with the plugin's own handler, so both paths serve the same JSON.
    .get("/openapi.json", () => specHandler())
    .get(
      SCALAR_BUNDLE_PATH,
      () =>
        new Response(Bun.file(scalarBundlePath), {
          headers: { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=86400" },
        }),
    )
}
