import { afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { FakeGateway } from "../fakes/fake-gateway"
import { ORIGIN, signIn, type DashboardClient } from "../helpers/dashboard"
import { createHarness, type Harness } from "../helpers/harness"
import { testPostgres } from "../helpers/postgres"
import { TestClock } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"
import { freshMigratedDatabase } from "../store/contract/stores"
import type { PhoneRow } from "../../src/store/phones"

/*
 * The dashboard's live pages on a node that does not hold the phone (docs/dashboard.md § "Several
 * nodes"): two nodes in one process on one PostgreSQL database, one fake WhatsApp. n1 holds the
 * phone and its socket; the browser's stream lands on n2, which hears the phone's pairing states
 * from n1 through the database (src/domain/pairing-relay.ts).
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const nodes: Harness[] = []
const streams: ReadableStreamDefaultReader<Uint8Array>[] = []
beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(async () => {
  for (const reader of streams.splice(0)) await reader.cancel().catch(() => {})
  for (const h of nodes.splice(0).reverse()) await h.close()
}, SLOW_HOOK_TIMEOUT_MS)

/** Two nodes on a fresh database; the dashboard client's session works on both (it is in the database). */
async function twoNodes(): Promise<{ n1: Harness; n2: Harness; gateway: FakeGateway; client: DashboardClient; adminToken: string }> {
  const url = await freshMigratedDatabase()
  const gateway = new FakeGateway()
  const start = async (nodeId: string) => {
    const h = await createHarness({ gateway, clock: new TestClock(), env: { WAGATE_DATABASE_URL: url, WAGATE_NODE_ID: nodeId } })
    nodes.push(h)
    return h
  }
  const n1 = await start("n1")
  const n2 = await start("n2")
  // Resetting the admin token ends every dashboard session: it is reset once, before signing in.
  const adminToken = await n1.adminToken()
  return { n1, n2, gateway, client: await signIn(n2, adminToken), adminToken }
}

/** A phone n1 holds and is pairing by QR (n1 claims it when asked to connect it). */
async function pairingOnN1(n1: Harness, adminToken: string): Promise<PhoneRow> {
  const account = await n1.seedAccount({ name: "Acme" })
  const phone = await n1.seedPhone(account.id)
  const res = await n1.request("POST", `/admin/v1/phones/${phone.id}/connect`, { key: adminToken, body: { method: "qr" } })
  expect(res.status).toBe(200)
  // The holder records `pairing` just after it answers; the pages on n2 read it from the database.
  await waitUntil(async () => (await n1.services.ctx.store.findPhone(phone.id))?.connectionStatus === "pairing", 10_000, "n1 to record the pairing")
  return phone
}

/** The HTML fragments of a live stream, collected as they arrive. */
async function openLive(h: Harness, client: DashboardClient, path: string): Promise<string[]> {
  const res = await h.app.handle(new Request(`${ORIGIN}${path}`, { headers: { cookie: client.cookie } }))
  expect(res.headers.get("content-type")).toStartWith("text/event-stream")
  const reader = res.body!.getReader()
  streams.push(reader)
  const messages: string[] = []
  const decoder = new TextDecoder()
  void (async () => {
    let buffer = ""
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
      if (done) return
      buffer += decoder.decode(value)
      let end: number
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const data = buffer
          .slice(0, end)
          .split("\n")
          .filter((l) => l.startsWith("data: "))
          .map((l) => l.slice(6))
          .join("\n")
        buffer = buffer.slice(end + 2)
        if (data) messages.push(data)
      }
    }
  })()
  return messages
}

test("the phone's live panel on the node without the phone shows the holder's QR, then Connected", async () => {
  const { n1, n2, gateway, client, adminToken } = await twoNodes()
  const phone = await pairingOnN1(n1, adminToken)
  // The page itself renders on n2 (the state is read, not claimed), with the status from the database.
  const page = await client.get(`/dashboard/phones/${phone.id}`)
  expect(page.status).toBe(200)
  expect(page.html).toContain("Pairing")
  // So does the overview, which shows every phone's last error.
  expect((await client.get(`/dashboard?account=${phone.accountId}`)).status).toBe(200)
  const messages = await openLive(n2, client, `/dashboard/phones/${phone.id}/live`)
  await waitUntil(() => messages.length > 0, 10_000, "the stream's first fragment")
  gateway.current(phone.id).showQr("2@qr-from-n1")
  await waitUntil(() => messages.some((m) => m.includes('data-qr="2@qr-from-n1"') && m.includes("<svg")), 10_000, "the QR n1 shows to reach n2's stream")
  gateway.current(phone.id).open(phone.phoneNumber)
  await waitUntil(() => messages.at(-1)?.includes(">Connected</span>") ?? false, 10_000, "n2's stream to turn to Connected")
  expect(messages.at(-1)).not.toContain("data-qr")
  // n2 never opened a socket of its own for the phone.
  expect(gateway.sessions.get(phone.id)?.length).toBe(1)
})

test("a live panel opened on the other node in the middle of a pairing asks the holder and shows its current QR", async () => {
  const { n1, n2, gateway, client, adminToken } = await twoNodes()
  const phone = await pairingOnN1(n1, adminToken)
  gateway.current(phone.id).showQr("2@qr-before-the-page")
  await n1.settle()
  const messages = await openLive(n2, client, `/dashboard/phones/${phone.id}/live`)
  await waitUntil(() => messages.some((m) => m.includes('data-qr="2@qr-before-the-page"')), 10_000, "n1 to answer n2's request with its QR")
  // Once heard, the page itself shows the QR on n2 as well.
  expect((await client.get(`/dashboard/phones/${phone.id}`)).html).toContain('data-qr="2@qr-before-the-page"')
  const pairing = await n2.request("GET", `/admin/v1/phones/${phone.id}/pairing`, { key: adminToken })
  expect(pairing.status).toBe(200)
  expect(pairing.body.data).toMatchObject({ connectionStatus: "pairing", qr: "2@qr-before-the-page" })
})

test("the phones list's live region on the node without the phone re-renders as the holder connects it", async () => {
  const { n1, n2, gateway, client, adminToken } = await twoNodes()
  const phone = await pairingOnN1(n1, adminToken)
  const messages = await openLive(n2, client, `/dashboard/phones/live?account=${phone.accountId}`)
  gateway.current(phone.id).open(phone.phoneNumber)
  await waitUntil(() => messages.some((m) => m.includes(phone.phoneNumber) && m.includes(">Connected</span>")), 10_000, "n2's phones list to show the phone connected")
})

test("connecting on the node without the phone shows the page again with whose phone it is, escaped, and the live panel", async () => {
  const { n1, client, adminToken } = await twoNodes()
  const phone = await pairingOnN1(n1, adminToken)
  const res = await client.post(`/dashboard/phones/${phone.id}/connect`, { method: "qr" })
  expect(res.status).toBe(409)
  expect(res.html).toContain('<div class="errors" role="alert">')
  expect(res.html).toContain(`Phone ${phone.phoneNumber} is held by node &quot;n1&quot;`)
  expect(res.html).toContain(`data-live="/dashboard/phones/${phone.id}/live`)
  for (const path of ["disconnect", "logout"]) {
    const refused = await client.post(`/dashboard/phones/${phone.id}/${path}`)
    expect(refused.status).toBe(409)
    expect(refused.html).toContain("is held by node &quot;n1&quot;")
  }
})
