import type { swagger } from "@elysiajs/swagger"
import { Elysia } from "elysia"

type ReferenceOptions = NonNullable<Parameters<typeof swagger>[0]> & { path: string }

/** What this module needs of the plugin's app: to answer a request. */
interface Handler {
  handle(request: Request): Promise<Response>
}

/**
 * The two methods through which a mounted plugin reads its host's routes and models. Elysia
 * declares them protected and rebinds them on every plugin it mounts (`use`); this module does
 * the same for the one plugin it mounts by hand. test/http/openapi.test.ts checks the result.
 */
interface RouteSource {
  getGlobalRoutes(): unknown
  getGlobalDefinitions(): unknown
}

/**
 * The API reference page (`path`) and the OpenAPI document (`path/json`), served by
 * @elysiajs/swagger, which is loaded on the first request to either. Loading the plugin and its
 * page themes at start would cost every start about a fifth of its time, for pages an operator
 * opens now and then. The document still lists the routes of the app this is mounted in: the
 * plugin is pointed at that app's routes, as Elysia does for a plugin it mounts itself.
 */
export function apiReference(options: ReferenceOptions) {
  const reference = new Elysia({ name: "api-reference" })
  let plugin: Promise<Handler> | null = null
  const load = () =>
    (plugin ??= import("@elysiajs/swagger").then(({ swagger: create }) => {
      const docs = create(options)
      // Called at request time, `reference` answers with the routes of the app it was mounted in.
      const host = reference as unknown as RouteSource
      const mounted = docs as unknown as RouteSource
      mounted.getGlobalRoutes = () => host.getGlobalRoutes()
      mounted.getGlobalDefinitions = () => host.getGlobalDefinitions()
      return docs
    }))
  const forward = async ({ request }: { request: Request }) => (await load()).handle(request)
  return reference.get(options.path, forward, { detail: { hide: true } }).get(`${options.path}/json`, forward, { detail: { hide: true } })
}
