import { afterEach, expect, test } from "bun:test"
import { CLAIM_POLL_MS } from "../../src/webhooks/dispatcher"
import { createHarness, type Harness } from "../helpers/harness"
import { WebhookReceiver } from "../helpers/webhook-receiver"
import { addEndpoint } from "../helpers/webhooks"

/*
 * The dispatcher's claim poll (every CLAIM_POLL_MS) finds the deliveries other processes
 * committed; on a node with nothing to deliver it must cost no write transaction (issue 28: an
 * idle SQLite node opened one, row-less, every second). The store runs its `beforeCommit` hooks
 * before every commit, so they count the write transactions.
 */

let h: Harness | undefined
let receiver: WebhookReceiver | undefined
afterEach(async () => {
  await h?.close()
  await receiver?.stop()
  h = receiver = undefined
})

const POLLS = 30

test("an idle node with a webhook endpoint and nothing to deliver commits no write transaction over many claim polls", async () => {
  h = await createHarness()
  receiver = new WebhookReceiver()
  const { account } = await h.seedTenant()
  await addEndpoint(h, account.id, receiver.url(), { events: ["*"] })
  await h.advance(CLAIM_POLL_MS)
  let commits = 0
  h.services.ctx.store.beforeCommit(async () => {
    commits++
  })
  for (let i = 0; i < POLLS; i++) await h.advance(CLAIM_POLL_MS)
  await h.services.ctx.store.flush()
  expect(commits).toBe(0)
})
