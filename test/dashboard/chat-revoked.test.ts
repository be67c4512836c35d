import { afterEach, expect, test } from "bun:test"
import { createHarness, type Harness } from "../helpers/harness"
import { signIn } from "../helpers/dashboard"

/* The Chats page's list (docs/dashboard.md § "Chats") shows a chat whose last message was deleted for everyone as WhatsApp does. */

let h: Harness
afterEach(() => h.close())

test("a chat whose last message was deleted for everyone reads 'This message was deleted' in the list, and the deleted text is nowhere on the page", async () => {
  h = await createHarness()
  const account = await h.seedAccount({ name: "Acme" })
  const phone = await h.seedPhone(account.id, "+14155550170")
  const key = await h.seedKey(account.id, { env: "test", scopes: ["messages:send", "messages:read"] })
  const sent = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "wrong price: 40 EUR" } })
  await h.advance(2_000)
  expect((await h.request("DELETE", `/v1/messages/${sent.body.data.id}`, { key })).status).toBe(200)
  const client = await signIn(h)
  const { status, html } = await client.get(`/dashboard/phones/${phone.id}/chats?account=${account.id}&env=test`)
  expect(status).toBe(200)
  expect(html).toContain("You: This message was deleted")
  expect(html).not.toContain("wrong price")
})
