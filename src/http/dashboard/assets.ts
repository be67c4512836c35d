// Embedded as text, so the compiled executable serves them with no file on disk.
import htmxSource from "htmx.org/dist/htmx.min.js" with { type: "text" }
import css from "./assets/dashboard.css" with { type: "text" }
import js from "./assets/dashboard.js" with { type: "text" }
import favicon from "./assets/favicon.svg" with { type: "text" }
import { SECURITY_HEADERS } from "./respond"
import htmxPackage from "htmx.org/package.json"

/** One embedded asset: its URL path, its body and its type. */
interface Asset {
  path: string
  body: string
  contentType: string
}

// The version is in the URL, so a browser may keep an asset for a day without ever using a
// stale one after an upgrade.
const stamp = (name: string, version: string) => `/dashboard/assets/${name}?v=${encodeURIComponent(version)}`

/** The URLs pages link the assets by. */
export const ASSET_PATHS = {
  htmx: stamp("htmx.min.js", htmxPackage.version),
  css: stamp("dashboard.css", String(Bun.hash(css))),
  js: stamp("dashboard.js", String(Bun.hash(js))),
  favicon: stamp("favicon.svg", String(Bun.hash(favicon))),
} as const

const ASSETS: ReadonlyMap<string, Asset> = new Map(
  [
    { path: "/dashboard/assets/htmx.min.js", body: htmxSource as string, contentType: "text/javascript; charset=utf-8" },
    { path: "/dashboard/assets/dashboard.css", body: css as string, contentType: "text/css; charset=utf-8" },
    { path: "/dashboard/assets/dashboard.js", body: js as string, contentType: "text/javascript; charset=utf-8" },
    // An SVG icon: one small file serves every size, and it is text like the other assets.
    { path: "/dashboard/assets/favicon.svg", body: favicon as string, contentType: "image/svg+xml" },
  ].map((a) => [a.path, a]),
)

/** Total bytes of every embedded asset (kept well under 200 KB; see test/dashboard). */
export function assetBytes(): number {
  let total = 0
  for (const asset of ASSETS.values()) total += Buffer.byteLength(asset.body)
  return total
}

/** The response for an asset path, or null when there is no such asset. */
export function assetResponse(pathname: string): Response | null {
  const asset = ASSETS.get(pathname)
  if (!asset) return null
  return new Response(asset.body, {
    headers: { ...SECURITY_HEADERS, "Content-Type": asset.contentType, "Cache-Control": "public, max-age=86400" },
  })
}
