import { Elysia, type DocumentDecoration } from "elysia"
import { errors } from "../lib/errors"

/** A registered route as Elysia lists it in `app.routes`. */
export interface RegisteredRoute {
  method: string
  path: string
  hooks?: { detail?: unknown }
}

/**
 * Answers "which methods does this path accept?" from the application's own route table, so a
 * request with the wrong method can be told 405 with an `Allow` header instead of 404, and no
 * list of routes is kept by hand. The table is read once, on the first question, when every
 * route has been registered.
 */
export function allowedMethodsLookup(routes: () => readonly RegisteredRoute[]): (path: string) => string[] {
  let patterns: { pattern: RegExp; method: string; isStatic: boolean }[] | null = null
  return (path) => {
    patterns ??= routes()
      .filter((r) => r.method !== "ALL" && !isMethodGuard(r))
      // A WebSocket route is a GET that asks to upgrade.
      .map((r) => ({ pattern: routePattern(r.path), method: r.method === "WS" ? "GET" : r.method.toUpperCase(), isStatic: !/[:*]/.test(r.path) }))
    const matching = patterns.filter(({ pattern }) => pattern.test(path))
    // A path that is a route of its own is never a parameter's value (`/v1/messages/send` is no message id).
    const own = matching.some((p) => p.isStatic) ? matching.filter((p) => p.isStatic) : matching
    return [...new Set(own.map((p) => p.method))].sort()
  }
}

/** `/v1/messages/:messageId` → a regular expression matching one path segment per parameter. */
function routePattern(template: string): RegExp {
  const source = template
    .split("/")
    .map((segment) => {
      if (segment === "*") return ".*"
      if (segment.startsWith(":")) return segment.endsWith("?") ? "[^/]*" : "[^/]+"
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    })
    .join("/")
  // Elysia's router takes a trailing slash as the same route.
  return new RegExp(`^${source}/?$`)
}

/** Marks the routes shadowedPathGuard adds: they refuse a method, they are not the path's own. */
const METHOD_GUARD = "x-wagate-method-guard"

/** True for a route shadowedPathGuard added, which `Allow`, the OpenAPI document and route listings leave out. */
export function isMethodGuard(route: RegisteredRoute): boolean {
  const detail = route.hooks?.detail as Record<string, unknown> | undefined
  return detail?.[METHOD_GUARD] === true
}

/**
 * The paths that name a route of their own but that a parameterised route of another method also
 * matches: `/v1/messages/send` (POST) is also `GET /v1/messages/:messageId` with the id "send".
 * For each, the methods registered on the path itself and the methods that would take it for an id.
 */
export function shadowedStaticPaths(routes: readonly RegisteredRoute[]): { path: string; allowed: string[]; refused: string[] }[] {
  const real = routes.filter((r) => r.method !== "ALL" && r.method !== "WS" && !isMethodGuard(r))
  const parameterised = real.filter((r) => r.path.split("/").some((segment) => segment.startsWith(":")))
  const out: { path: string; allowed: string[]; refused: string[] }[] = []
  for (const path of new Set(real.filter((r) => !r.path.includes(":") && !r.path.includes("*")).map((r) => r.path))) {
    const allowed = [...new Set(real.filter((r) => r.path === path).map((r) => r.method.toUpperCase()))].sort()
    const refused = [...new Set(parameterised.filter((r) => routePattern(r.path).test(path)).map((r) => r.method.toUpperCase()))]
      .filter((method) => !allowed.includes(method))
      .sort()
    if (refused.length > 0) out.push({ path, allowed, refused })
  }
  return out
}

/**
 * Answers a shadowed path's other methods with 405 and its `Allow` header, as any path with the
 * wrong method is answered, instead of letting the parameterised route take the path's last
 * segment for an id (`GET /v1/messages/send` was "Message send not found"). Each refused method
 * gets a route of its own on the static path: both Elysia's router and Bun's, which serves static
 * paths first when listening, prefer it to the parameter. These routes sit outside `/v1`, so the
 * 405 comes before authentication, as every 405 and 404 does.
 */
export function shadowedPathGuard(routes: readonly RegisteredRoute[]) {
  const guard = new Elysia({ name: "wagate.shadowed-paths" })
  for (const { path, allowed, refused } of shadowedStaticPaths(routes)) {
    for (const method of refused) {
      guard.route(
        method,
        path,
        ({ request }) => {
          throw errors.methodNotAllowed(request.method, new URL(request.url).pathname, allowed)
        },
        { detail: { hide: true, [METHOD_GUARD]: true } as DocumentDecoration },
      )
    }
  }
  return guard
}

/**
 * A plain GET (no `Upgrade: websocket`) on a WebSocket route is answered `426 Upgrade Required`
 * with `Upgrade: websocket`, not 404: the path exists, in a protocol the request did not ask for.
 * Elysia sends a GET that asks to upgrade to the WebSocket route and any other GET here. Like the
 * 405 answers, it comes before authentication and is left out of `Allow` and the document.
 */
export function webSocketPlainGetGuard(routes: readonly RegisteredRoute[]) {
  const guard = new Elysia({ name: "wagate.websocket-plain-get" })
  const hasGet = new Set(routes.filter((r) => r.method === "GET").map((r) => r.path))
  for (const { path } of routes.filter((r) => r.method === "WS" && !hasGet.has(r.path))) {
    guard.get(
      path,
      ({ request }) => {
        throw errors.webSocketOnly(new URL(request.url).pathname)
      },
      { detail: { hide: true, [METHOD_GUARD]: true } as DocumentDecoration },
    )
  }
  return guard
}
