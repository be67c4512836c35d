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
