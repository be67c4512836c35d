import { createEndpoint } from "../../src/domain/webhook-endpoints"
import type { DeliveryRow, EventRow } from "../../src/store/webhooks"
import type { Harness } from "../helpers/harness"

/** A receiver's answer that must stay text on the page. */
export const HOSTILE_ANSWER = `<script>window.pwned=1</script><img src=x onerror="window.pwned=2">`
const TYPES = ["message.sent", "message.delivered", "message.failed", "group.joined", "phone.connected"] as const
const STATUSES = ["succeeded", "failed", "pending", "succeeded", "succeeded"] as const

/**
 * Realistic webhook data for the test account: three endpoints, the first with `count`
 * deliveries of mixed events and statuses, one minute apart, each finished one with its attempts
 * (the failed ones answered with a hostile body). Returns the first endpoint's id.
 */
export async function seedDeliveries(h: Harness, accountId: string, count: number): Promise<string> {
  const ctx = h.services.ctx
  const urls = ["https://crm.example.com/hooks/wagate", "https://n8n.internal.example/webhook/4f1c2b7e-whatsapp", "https://billing.example.org/wa/events"]
  const endpoints = []
  for (const url of urls) endpoints.push(await createEndpoint(ctx, { accountId, env: "test", url, events: ["*"] }))
  const t0 = h.clock.nowMs() - count * 60_000
  const events: EventRow[] = []
  const deliveries: DeliveryRow[] = []
  for (let i = 0; i < count; i++) {
    const type = TYPES[i % TYPES.length]!
    const at = t0 + i * 60_000
    const id = `evt_seed${String(i).padStart(4, "0")}`
    const data = type.startsWith("message.") ? { messageId: `msg_seed${String(i).padStart(4, "0")}` } : { groupId: "120363025246125486@g.us" }
    events.push({ id, accountId, env: "test", type, body: JSON.stringify({ id, type, data }), occurredAtMs: at })
    const status = STATUSES[Math.floor(i / 5) % STATUSES.length]!
    const attempts = status === "pending" ? 0 : status === "failed" ? 3 : 1
    deliveries.push({
      id: `whd_seed${String(i).padStart(4, "0")}`, eventId: id, endpointId: endpoints[0]!.id, status, attemptCount: attempts,
      firstAttemptAtMs: attempts ? at : null, nextAttemptAtMs: status === "pending" ? at + 30_000 : null,
      lastStatusCode: status === "failed" ? 500 : status === "succeeded" ? 200 : null, lastError: null, resentFrom: null, createdAtMs: at, updatedAtMs: at + 1_000,
    })
  }
  await ctx.store.insertEventsAndDeliveries(events, deliveries)
  for (const d of deliveries) {
    for (let n = 1; n <= d.attemptCount; n++) {
      const failed = d.status === "failed"
      await ctx.store.insertAttempt({
        deliveryId: d.id, attemptNumber: n, attemptedAtMs: d.createdAtMs + n * 100, statusCode: failed ? 500 : 200, error: null, latencyMs: 40 + n,
        responseBody: failed ? `Internal error ${HOSTILE_ANSWER}` : `{"ok":true}`,
      })
    }
  }
  return endpoints[0]!.id
}
