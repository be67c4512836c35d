import type { StoreQueries } from "../store/store"
import { type EndpointRow } from "../store/webhooks"

/**
 * Endpoints (URL, secrets, enabled flag, events) held in memory for the dispatcher, so an
 * attempt reads none of them from the database. Everything cached is dropped when the change
 * version moves: an endpoint edited, rotated or removed through this process, or any commit by
 * another process (a CLI command beside the server), so an attempt never uses a stale URL or
 * secret for longer than it takes that change to be seen.
 */
export interface EndpointCache {
  /** The endpoint, or null when it no longer exists. */
  get(endpointId: string): Promise<EndpointRow | null>
}

export function createEndpointCache(q: StoreQueries, version: () => string): EndpointCache {
  const endpoints = new Map<string, EndpointRow | null>()
  let cachedVersion = ""
  return {
    async get(endpointId) {
      const current = version()
      if (current !== cachedVersion) {
        endpoints.clear()
        cachedVersion = current
      }
      let endpoint = endpoints.get(endpointId)
      if (endpoint === undefined) {
        endpoint = await q.findEndpoint(endpointId)
        endpoints.set(endpointId, endpoint)
      }
      return endpoint
    },
  }
}
