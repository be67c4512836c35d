import { Elysia } from "elysia"
// The package's `exports` do not list its browser bundle (its `browser` field names the file), and
// package.json `imports` may not point into node_modules, so tsconfig.json's `paths` (which Bun
// follows too) maps this name to it. `with { type: "file" }` embeds it in the executable.
import scalarBundlePath from "#scalar-api-reference-bundle" with { type: "file" }
import { buildOpenApiDocument, type DocumentedRoute } from "../openapi/document"

/** Where the page loads the reference UI from: our own origin, never a CDN. */
export const SCALAR_BUNDLE_PATH = "/swagger/assets/scalar-api-reference.js"

/**
 * The Scalar page's settings, chosen so that it makes no request beyond our origin: no web fonts
 * (they come from fonts.scalar.com), no telemetry, no AI agent, no developer toolbar, and no
 * "Generate MCP" button (on a local URL Scalar shows it unless `mcp.disabled`; it uploads the
 * document to Scalar's service). No `proxyUrl` is set, so "Test request" calls the server directly
 * (Scalar only uses its own proxy when told to).
 */
export const SCALAR_CONFIG = {
  spec: { url: "/swagger/json" },
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
} as const

type SwaggerOptions = NonNullable<Parameters<typeof import("@elysiajs/swagger").swagger>[0]>

/**
 * The OpenAPI document at /swagger/json (and /openapi.json), and its reference page at /swagger,
 * served by `@elysiajs/swagger` (docs/api.md § "OpenAPI"). The plugin's own document generator is
 * switched off (`exclude` matches every path); its content is our 3.1 document, built from the
 * routes' documentation.
 *
 * Start-up pays for none of it: the plugin is imported, given the document and mounted on its own
 * Elysia instance at the first request to one of these paths, and every later request is handed
 * to that instance. Importing it evaluates Scalar's theme and configuration schemas (about 20 ms
 * of CPU), and building the document takes about 30 ms more.
 */
export function docsRoutes(options: { version: string; routes: () => readonly DocumentedRoute[] }) {
  let served: Promise<{ handle: (request: Request) => Promise<Response> }> | undefined
  const docs = () =>
    (served ??= import("@elysiajs/swagger").then(({ swagger }) =>
      new Elysia().use(
        swagger({
          provider: "scalar",
          path: "/swagger",
          specPath: "/swagger/json",
          // The plugin's typings describe OpenAPI 3.0; the document is 3.1 (webhooks, type arrays).
          documentation: buildOpenApiDocument({ version: options.version, routes: options.routes() }) as SwaggerOptions["documentation"],
          exclude: [/.*/],
          scalarCDN: SCALAR_BUNDLE_PATH,
          scalarConfig: SCALAR_CONFIG as unknown as SwaggerOptions["scalarConfig"],
        }),
      ),
    ))
  const forward = (request: Request, path: string) => docs().then((app) => app.handle(new Request(new URL(path, request.url).href)))
  return new Elysia({ name: "wagate.docs" })
    .get("/swagger", ({ request }) => forward(request, "/swagger"))
    .get("/swagger/json", ({ request }) => forward(request, "/swagger/json"))
    // The alias is answered by the plugin's own handler, so both paths serve the same JSON.
    .get("/openapi.json", ({ request }) => forward(request, "/swagger/json"))
    .get(
      SCALAR_BUNDLE_PATH,
      () =>
        new Response(Bun.file(scalarBundlePath), {
          headers: { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=86400" },
        }),
    )
}
