import type { Harness } from "./harness"
import { waitUntil } from "./webhook-receiver"

/** Adds a webhook endpoint through the admin API and returns its id and secret. */
export async function addEndpoint(
  h: Harness,
  accountId: string,
  url: string,
  options: { environment?: "test" | "live"; events?: string[] } = {},
): Promise<{ id: string; secret: string }> {
  const res = await h.request("POST", `/admin/v1/accounts/${accountId}/webhooks`, {
    key: await h.adminToken(),
    body: { url, environment: options.environment ?? "test", events: options.events ?? ["*"] },
  })
  if (res.status !== 201) throw new Error(`adding the endpoint failed: ${JSON.stringify(res.body)}`)
  return { id: res.body.data.id, secret: res.body.data.secret }
}

/** Reads one delivery row straight from the store (tests only). */
export function deliveryRows(h: Harness, endpointId: string) {
  return h.services.sqlite!
    .query(
      `SELECT d.id, d.status, d.attempt_count AS attemptCount, d.next_attempt_at_ms AS nextAttemptAtMs, d.last_error AS lastError, e.type
       FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.endpoint_id = ? ORDER BY d.created_at_ms, d.id`,
    )
    .all(endpointId) as { id: string; status: string; attemptCount: number; nextAttemptAtMs: number | null; lastError: string | null; type: string }[]
}

/** Waits until the delivery's attempts are recorded (the HTTP exchange itself runs in real time). */
export async function waitForAttempts(h: Harness, deliveryId: string, count: number): Promise<void> {
  await waitUntil(
    () => {
      const row = h.services.sqlite!.query("SELECT attempt_count AS n FROM webhook_deliveries WHERE id = ?").get(deliveryId) as { n: number } | null
      return (row?.n ?? 0) >= count
    },
    5_000,
    `${count} recorded attempts of ${deliveryId}`,
  )
  // The row is visible on the writer's connection before its batch commits; let the commit (and
  // the retry it schedules afterwards) happen before the test moves the clock on.
  await new Promise((r) => setImmediate(r))
}
