import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { createApiKey } from "../../src/domain/api-keys"
import { setCallPolicy } from "../../src/domain/call-actions"
import type { AccountRow } from "../../src/store/accounts"
import type { PhoneRow } from "../../src/store/phones"
import { createHarness, type Harness } from "../helpers/harness"
import { expectEscaped, HOSTILE, signIn, type DashboardClient } from "../helpers/dashboard"

/*
 * The Sandbox page's simulation forms (docs/dashboard.md § "Sandbox: a customer's message and
 * call"): a customer's message and call, as the API's sandbox routes make them, CSRF-checked.
 */

let h: Harness
let client: DashboardClient
let account: AccountRow
let phone: PhoneRow
let keyId: string
beforeEach(async () => {
  h = await createHarness()
  account = await h.seedAccount({ name: "Acme" })
  phone = await h.seedPhone(account.id, "+14155550170")
  keyId = (await createApiKey(h.services.ctx, { accountId: account.id, env: "test", scopes: ["messages:send"], name: "sandbox" })).row.id
  client = await signIn(h)
})
afterEach(() => h.close())

const inboundRows = () => h.services.sqlite!.query("SELECT id, env, from_address AS fromAddress, content, reply_to_id AS replyToId FROM inbound_messages").all()
const receive = (fields: Record<string, string>, options?: { csrf?: string | null }) => client.post(`/dashboard/sandbox/inbound?account=${account.id}`, fields, options)
const ring = (fields: Record<string, string>) => client.post(`/dashboard/sandbox/calls?account=${account.id}`, fields)

describe("dashboard sandbox simulation: success", () => {
  test("the page shows both forms for an account with a phone and a test key", async () => {
    const { html } = await client.get(`/dashboard/sandbox?account=${account.id}`)
    expect(html).toContain("Simulate a customer's message")
    expect(html).toContain(">Receive message</button>")
    expect(html).toContain("Simulate a call")
    expect(html).toContain(">Ring the phone</button>")
  })

  test("a customer's message is recorded in the test environment, quoting a sent message, and its page opens", async () => {
    const key = await h.seedKey(account.id)
    const sent = (await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.id, to: "+14155550199", content: "Shall we?" } })).body.data.id
    const res = await receive({ keyId, fromPhoneId: phone.id, from: "+14155550199", content: "Yes please", replyTo: sent })
    expect(res.status).toBe(303)
    const id = /\/dashboard\/messages\/(inmsg_[0-9a-z]+)/.exec(res.headers.get("location")!)![1]!
    expect(inboundRows()).toEqual([{ id, env: "test", fromAddress: "+14155550199", content: "Yes please", replyToId: sent }])
    expect((await client.get(res.headers.get("location")!)).html).toContain("Yes please")
  })

  test("a call rings, or under a rejecting policy is rejected with the reply text sent, and the page says which", async () => {
    const ringing = await ring({ keyId, fromPhoneId: phone.id, from: "+14155550199" })
    expect(ringing.status).toBe(201)
    expect(ringing.html).toMatch(/Call [0-9A-F]{32} from \+14155550199 is ringing/)
    await setCallPolicy(h.services.ctx, phone.id, { rejectCalls: true, replyText: "Write to us" })
    const rejected = await ring({ keyId, fromPhoneId: phone.id, from: "+14155550199", isVideo: "on" })
    expect(rejected.html).toMatch(/was rejected by the phone's call policy; the reply text was sent\./)
    const calls = h.services.sqlite!.query("SELECT env, is_video AS isVideo, outcome FROM calls ORDER BY offered_at_ms, rowid").all()
    expect(calls).toEqual([
      { env: "test", isVideo: 0, outcome: null },
      { env: "test", isVideo: 1, outcome: "rejected" },
    ])
  })
})

describe("dashboard sandbox simulation: errors", () => {
  test("a bad number and an unknown reply target are shown in the form's words, and nothing is recorded", async () => {
    const bad = await receive({ keyId, fromPhoneId: phone.id, from: "0170 123", content: "x", replyTo: "" })
    expect(bad.status).toBe(400)
    expect(bad.html).toContain("Customer's number must be a phone number in international form (+ and 8–15 digits)")
    const missing = await receive({ keyId, fromPhoneId: phone.id, from: "+14155550199", content: "x", replyTo: "msg_nope" })
    expect(missing.status).toBe(404)
    expect(missing.html).toContain("Message msg_nope not found")
    expect(inboundRows()).toEqual([])
  })
})

describe("dashboard sandbox simulation: security", () => {
  test("a post without the CSRF token, or with a stale one, changes nothing", async () => {
    for (const csrf of [null, "stale"]) expect((await receive({ keyId, fromPhoneId: phone.id, from: "+14155550199", content: "x" }, { csrf })).status).toBe(403)
    expect(inboundRows()).toEqual([])
  })

  test("a live key or another account's test key is refused; typed text comes back escaped", async () => {
    const { row: live } = await createApiKey(h.services.ctx, { accountId: account.id, env: "live", scopes: ["messages:send"] })
    const other = await h.seedAccount({ name: "Other" })
    const { row: foreign } = await createApiKey(h.services.ctx, { accountId: other.id, env: "test", scopes: ["messages:send"] })
    for (const id of [live.id, foreign.id]) {
      const res = await receive({ keyId: id, fromPhoneId: phone.id, from: "+14155550199", content: HOSTILE.script, replyTo: HOSTILE.attribute })
      expect(res.status).toBe(400)
      expect(res.html).toContain("Pick a test key of this account")
      expectEscaped(res.html, [HOSTILE.script, HOSTILE.attribute])
    }
    expect(inboundRows()).toEqual([])
    expect(h.services.sqlite!.query("SELECT COUNT(*) AS n FROM calls").get()).toEqual({ n: 0 })
  })
})
