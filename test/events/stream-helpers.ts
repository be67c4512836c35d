import { createHarness, type Harness } from "../helpers/harness"
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
