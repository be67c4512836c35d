import type { DeliveryRow, EndpointRow, EventRow } from "../../../src/store/webhooks"
import type { ContractStore } from "./stores"

/*
 * Rows for the webhook contract tests. Times are real epoch milliseconds, far past 2^31, so a
 * store that returned int8 columns as strings or truncated them would fail every comparison.
 */

export const T0 = 1_764_000_000_000

export async function seedAccount(store: ContractStore, id = "acc_1"): Promise<void> {
  await store.insertAccount({ id, name: "Acme", email: "ops@acme.test", subscriptionStatus: "active", rateLimitPerMinute: null, createdAtMs: T0, updatedAtMs: T0 })
}

export function endpoint(id: string, patch: Partial<EndpointRow> = {}): EndpointRow {
  return {
    id,
    accountId: "acc_1",
    env: "test",
    url: `https://hooks.example.test/${id}`,
    events: ["message.delivered", "message.read"],
    enabled: true,
    secret: `whsec_${id}`,
    previousSecret: null,
    previousSecretExpiresAtMs: null,
    createdAtMs: T0,
    updatedAtMs: T0,
    ...patch,
  }
}

export function event(id: string, patch: Partial<EventRow> = {}): EventRow {
  return { id, accountId: "acc_1", env: "test", type: "message.delivered", body: `{"event":"message.delivered","id":"${id}"}`, occurredAtMs: T0, ...patch }
}

export function delivery(id: string, eventId: string, endpointId: string, patch: Partial<DeliveryRow> = {}): DeliveryRow {
  return {
    id,
    eventId,
    endpointId,
    status: "pending",
    attemptCount: 0,
    firstAttemptAtMs: null,
    nextAttemptAtMs: T0,
    lastStatusCode: null,
    lastError: null,
    resentFrom: null,
    createdAtMs: T0,
    updatedAtMs: T0,
    ...patch,
  }
}

/** Zero-padded, so that the ids sort as their numbers do in both stores. */
export const nth = (prefix: string, i: number) => `${prefix}_${String(i).padStart(5, "0")}`

/** An account, one endpoint `wh_1`, and `n` events each with one pending delivery, due at T0 + i. */
export async function seedDue(store: ContractStore, n: number): Promise<DeliveryRow[]> {
  await seedAccount(store)
  await store.insertEndpoint(endpoint("wh_1"))
  const events = Array.from({ length: n }, (_, i) => event(nth("evt", i)))
  const deliveries = events.map((e, i) => delivery(nth("whd", i), e.id, "wh_1", { nextAttemptAtMs: T0 + i }))
  await store.insertEventsAndDeliveries(events, deliveries)
  return deliveries
}
