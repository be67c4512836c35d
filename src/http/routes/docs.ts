import { Elysia } from "elysia"
import swaggerUiBundlePath from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" }
import swaggerUiCssPath from "swagger-ui-dist/swagger-ui.css" with { type: "file" }
import { errors } from "../../lib/errors"
import { buildOpenApiDocument, type DocumentedRoute } from "../openapi/document"

/** The reference page's files, served from our own origin (docs/api.md, "OpenAPI"). */
const ASSETS: Record<string, { path: string; contentType: string }> = {
  "swagger-ui-bundle.js": { path: swaggerUiBundlePath, contentType: "text/javascript; charset=utf-8" },
  "swagger-ui.css": { path: swaggerUiCssPath, contentType: "text/css; charset=utf-8" },
}

/**
 * The reference page: Swagger UI from the npm package, embedded in the executable, so the page
 * works with no network. `validatorUrl: null` keeps it from sending the document to an online
 * validator.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>wagate API reference</title>
<link rel="stylesheet" href="/swagger/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/swagger/assets/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", validatorUrl: null, deepLinking: true })
</script>
</body>
</html>
`

/**
 * The OpenAPI document at /openapi.json and /swagger/json, and its reference page at /swagger.
 * The document is built from the routes on the first request (they are all registered by then)
 * and kept as text.
 */
export function docsRoutes(options: { version: string; routes: () => readonly DocumentedRoute[] }) {
  let text: string | undefined
  const document = () => {
    text ??= JSON.stringify(buildOpenApiDocument({ version: options.version, routes: options.routes() }))
    return new Response(text, { headers: { "Content-Type": "application/json; charset=utf-8" } })
  }
  return new Elysia({ name: "wagate.docs" })
    .get("/openapi.json", document)
    .get("/swagger/json", document)
    .get("/swagger", () => new Response(PAGE, { headers: { "Content-Type": "text/html; charset=utf-8" } }))
    .get("/swagger/assets/:file", ({ params, path }) => {
      const asset = ASSETS[params.file]
      if (!asset) throw errors.routeNotFound("GET", path)
      return new Response(Bun.file(asset.path), {
        headers: { "Content-Type": asset.contentType, "Cache-Control": "public, max-age=86400" },
      })
    })
}
