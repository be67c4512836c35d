import { afterEach } from "bun:test"
import { createHarness, type Harness } from "../helpers/harness"
import { openStream } from "../helpers/event-stream-client"
import { openSocket, rawUpgrade } from "../helpers/event-ws-client"
import type { EventType } from "../../src/lib/vocabulary"
import type { Logger } from "../../src/lib/logger"

/** A harness listening on a free port of 127.0.0.1, and its base URL. */
export async function listeningHarness(options: { database?: "sqlite" | "postgres"; logger?: Logger; eventStreams?: { bufferBytes?: number } } = {}): Promise<{ h: Harness; base: string }> {
  const h = await createHarness(options)
  h.app.listen({ port: 0, hostname: "127.0.0.1" })
  return { h, base: `http://127.0.0.1:${h.app.server!.port}` }
}

/** Records `types.length` events of an account's test environment in one write, through the outbox. */
export async function emit(h: Harness, accountId: string, types: readonly EventType[], data: Record<string, unknown> = {}): Promise<void> {
  const { store, events, clock } = h.services.ctx
  await store.write(async (q, tx) =>
    events.recordMany(q, tx, types.map((type, n) => ({ accountId, env: "test" as const, type, occurredAtMs: clock.nowMs(), data: { n, ...data } }))),
  )
}

/** Bearer auth for a key. */
export const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

/**
 * A stream test file's tenants: each call makes a listening harness with a seeded account and an
 * `events:read` key, and opens SSE streams and WebSockets with that key by default (other headers
 * replace it). Everything is closed after each test. Call once, at the file's top level.
 */
export function streamTenants() {
  let h: Harness | undefined
  const clients: { close(): unknown }[] = []
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close()
    await h?.app.stop(true)
    await h?.close()
    h = undefined
  })
  const keep = <C extends { close(): unknown }>(client: C): C => {
    clients.push(client)
    return client
  }
  return async (options: Parameters<typeof listeningHarness>[0] = {}) => {
    const { h: harness, base } = await listeningHarness(options)
    h = harness
    const { account, key: sendKey, phone } = await harness.seedTenant()
    const key = await harness.seedKey(account.id, { scopes: ["events:read"] })
    return {
      h: harness,
      base,
      account,
      phone,
      /** The tenant's full key, for sends. */
      sendKey,
      /** The `events:read` key the streams use. */
      key,
      sse: async (path = "/v1/events", headers: Record<string, string> = bearer(key)) => keep(await openStream(base, path, headers)),
      socket: async (path = "/v1/events/ws", headers: Record<string, string> = bearer(key)) => keep(await openSocket(base, path, headers)),
      /** An upgrade request answered before any socket opens (a refusal), read raw. */
      upgrade: (path: string, headers: Record<string, string> = bearer(key)) => rawUpgrade(base, path, headers),
    }
  }
}
