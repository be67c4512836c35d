/*
 * `bun test/dashboard/screenshots.ts`: regenerates the screenshots in docs/ (the phones page and
 * a message's timeline) from an in-process wagate with seeded data, in Debian's Chromium.
 */
import { join } from "node:path"
import { addPhone } from "../../src/domain/phones"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import { WebhookReceiver } from "../helpers/webhook-receiver"
import { launchBrowser } from "../helpers/browser"
import { createHarness } from "../helpers/harness"

const DOCS = join(import.meta.dir, "..", "..", "docs")

const h = await createHarness({ env: { WAGATE_SANDBOX_DELIVERED_MS: "2000", WAGATE_SANDBOX_READ_MS: "9000" } })
const token = await h.adminToken()
const account = await h.seedAccount({ name: "Acme Support", email: "ops@acme.example" })
const support = await addPhone(h.services.ctx, account.id, "+14155550123", "Support")
const sales = await addPhone(h.services.ctx, account.id, "+14155550124", "Sales")
await addPhone(h.services.ctx, account.id, "+14155550125", "Backup line")
await h.connectPhone(support)
await h.services.sessions.connect(sales.id, "qr")
h.gateway.current(sales.id).showQr("2@screenshot-ref,noise,identity,adv")
await h.settle()
const receiver = new WebhookReceiver()
await createEndpoint(h.services.ctx, { accountId: account.id, env: "test", url: receiver.url("/wagate"), events: ["*"] })
const key = await h.seedKey(account.id)
const sent = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: support.id, to: "+14155550199", content: "Your order #1042 has shipped." } })
// Each step lets its webhook reach the receiver, and its attempt be recorded, before the clock moves on.
await h.advance(10)
await receiver.waitFor(1)
await h.settle()
await h.advance(2000)
await receiver.waitFor(2)
await h.settle()
await h.advance(7000)
await receiver.waitFor(3)
await h.settle()
// Our reaction to it: the page shows it "(us)" and its webhook delivery beside the status events'.
// A heart, which the system fonts draw (a build box may have no colour emoji font).
await h.request("POST", `/v1/messages/${sent.body.data.id}/reaction`, { key, body: { emoji: "❤" } })
await receiver.waitFor(4)
await h.settle()

const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => h.app.handle(request) })
const base = `http://127.0.0.1:${server.port}`
const browser = await launchBrowser()
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 640 } })
  await page.goto(`${base}/dashboard/sign-in`)
  await page.getByLabel("Admin token").fill(token)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()
  await page.goto(`${base}/dashboard/phones?account=${account.id}&env=test`)
  await page.screenshot({ path: join(DOCS, "dashboard-phones.png"), fullPage: true })
  await page.goto(`${base}/dashboard/messages/${sent.body.data.id}?account=${account.id}&env=test`)
  await page.screenshot({ path: join(DOCS, "dashboard-message.png"), fullPage: true })
} finally {
  await browser.close()
  server.stop(true)
  await receiver.stop()
  await h.close()
}
console.log("docs/dashboard-phones.png and docs/dashboard-message.png written")
