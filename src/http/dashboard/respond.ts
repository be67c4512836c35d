import type { VNode } from "preact"
import { renderToString } from "preact-render-to-string"

/**
 * The headers every dashboard response carries (docs/dashboard.md § "Safety"): scripts, styles
 * and images only from this origin, no inline script, never framed, no referrer to elsewhere.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
}

/** Headers of a dashboard HTML response: pages show secrets and live state, so nothing caches them. */
const HTML_HEADERS: Readonly<Record<string, string>> = {
  ...SECURITY_HEADERS,
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
}

/**
 * Renders a page. preact escapes every text child and attribute value, so user data placed in
 * JSX can never become markup.
 */
export function htmlResponse(page: VNode, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(`<!doctype html>${renderToString(page)}`, { status, headers: { ...HTML_HEADERS, ...headers } })
}

/** Renders a fragment (an SSE payload or an htmx swap) without the doctype. */
export function renderFragment(fragment: VNode): string {
  return renderToString(fragment)
}

/** A 303 to another dashboard page: the browser follows it with a GET (post/redirect/get). */
export function redirect(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { ...SECURITY_HEADERS, "Cache-Control": "no-store", Location: location, ...headers } })
}

/** A plain-text refusal (a CSRF failure says why without rendering anything from the request). */
export function refusal(status: number, text: string): Response {
  return new Response(text, { status, headers: { ...SECURITY_HEADERS, "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } })
}

/** An HTML fragment for an htmx swap (no doctype), with the same headers as a page. */
export function fragmentResponse(fragment: VNode, status = 200): Response {
  return new Response(renderToString(fragment), { status, headers: HTML_HEADERS })
}
