import { Elysia } from "elysia"
import { errors } from "../lib/errors"

/** A registered route as Elysia lists it in `app.routes`. */
export interface RegisteredRoute {
  method: string
  path: string
}

/**
 * Answers "which methods does this path accept?" from the application's own route table, so a
 * request with the wrong method can be told 405 with an `Allow` header instead of 404, and no
 * list of routes is kept by hand. The table is read once, on the first question, when every
 * route has been registered.
 */
export function allowedMethodsLookup(routes: () => readonly RegisteredRoute[]): (path: string) => string[] {
  let patterns: { pattern: RegExp; method: string }[] | null = null
  return (path) => {
    patterns ??= routes()
      .filter((r) => r.method !== "ALL" && r.method !== "WS")
      .map((r) => ({ pattern: routePattern(r.path), method: r.method.toUpperCase() }))
    const methods = new Set<string>()
    for (const { pattern, method } of patterns) if (pattern.test(path)) methods.add(method)
    return [...methods].sort()
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

/**
 * The paths that name a route of their own but that a parameterised route of another method also
 * matches: `/v1/messages/send` (POST) is also `GET /v1/messages/:messageId` with the id "send".
 * For each, the methods registered on the path itself.
 */
export function shadowedStaticPaths(routes: readonly RegisteredRoute[]): { path: string; allowed: string[] }[] {
  const real = routes.filter((r) => r.method !== "ALL" && r.method !== "WS")
  const parameterised = real.filter((r) => r.path.split("/").some((segment) => segment.startsWith(":")))
  const out: { path: string; allowed: string[] }[] = []
  for (const path of new Set(real.filter((r) => !r.path.includes(":") && !r.path.includes("*")).map((r) => r.path))) {
    const allowed = [...new Set(real.filter((r) => r.path === path).map((r) => r.method.toUpperCase()))].sort()
    const shadowing = parameterised.some((r) => !allowed.includes(r.method.toUpperCase()) && routePattern(r.path).test(path))
    if (shadowing) out.push({ path, allowed })
  }
  return out
}

/**
 * Answers the other methods on a shadowed path with 405 and its `Allow` header, as any path with
 * the wrong method is answered, instead of letting the parameterised route take the path's last
 * segment for an id (`GET /v1/messages/send` was "Message send not found"). Elysia's router
 * prefers a static path to a parameter, and a method's own route to `ALL`, so the path's real
 * routes still answer their methods. `ALL` routes are left out of `Allow` and of the OpenAPI
 * document, which lists only documented operations.
 */
export function shadowedPathGuard(routes: readonly RegisteredRoute[]) {
  const guard = new Elysia({ name: "wagate.shadowed-paths" })
  for (const { path, allowed } of shadowedStaticPaths(routes)) {
    guard.all(path, ({ request }) => {
      throw errors.methodNotAllowed(request.method, new URL(request.url).pathname, allowed)
    })
  }
  return guard
}
