import { afterEach, describe, expect, test } from "bun:test"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"

/* POST /v1/contacts/block, /unblock and GET /v1/contacts/blocked: success, errors, security. */

let h: Harness
afterEach(() => h.close())

const block = (key: string, body: unknown, action: "block" | "unblock" = "block") => h.request("POST", `/v1/contacts/${action}`, { key, body })
const blocked = (key: string, phone: string) => h.request("GET", `/v1/contacts/blocked?fromPhoneId=${encodeURIComponent(phone)}`, { key })

describe("blocking: success", () => {
  test("test keys: the sandbox phone's block list is kept in the store; block, list, unblock", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant()
    const res = await block(key, { fromPhoneId: phone.phoneNumber, contact: "+14155550199" })
    expect(res.status).toBe(200)
    expect(res.body.data).toEqual({ contact: "+14155550199", blocked: true })
    await h.advance(1000)
    expect((await block(key, { fromPhoneId: phone.id, contact: "123456789012345@lid" })).status).toBe(200)
    // Blocking again is accepted and keeps the list as it is.
    expect((await block(key, { fromPhoneId: phone.id, contact: "+14155550199" })).status).toBe(200)
    expect((await h.services.ctx.store.listSandboxBlocks(phone.id)).map((r) => r.contact)).toEqual(["+14155550199", "123456789012345@lid"])
    expect((await blocked(key, phone.id)).body.data).toEqual({ contacts: ["+14155550199", "123456789012345@lid"] })
    expect((await block(key, { fromPhoneId: phone.id, contact: "+14155550199" }, "unblock")).body.data).toEqual({ contact: "+14155550199", blocked: false })
    expect((await blocked(key, phone.id)).body.data).toEqual({ contacts: ["123456789012345@lid"] })
  })

  test("live keys: block and unblock reach WhatsApp by JID; the list is WhatsApp's, so a block made on the phone shows at once", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant({ env: "live" })
    await h.connectPhone(phone)
    expect((await block(key, { fromPhoneId: phone.id, contact: "+14155550199" })).body.data).toEqual({ contact: "+14155550199", blocked: true })
    expect((await block(key, { fromPhoneId: phone.id, contact: "123456789012345@lid" }, "unblock")).status).toBe(200)
    expect(h.gateway.contacts.calls.map((c) => [c.op, c.arg])).toEqual([
      ["block", "14155550199@s.whatsapp.net"],
      ["unblock", "123456789012345@lid"],
    ])
    // Made on the phone: WhatsApp's list has it, and so does the next read.
    h.gateway.contacts.blocklists.get(phone.id)!.add("555666777888999@lid")
    expect((await blocked(key, phone.phoneNumber)).body.data).toEqual({ contacts: ["+14155550199", "555666777888999@lid"] })
  })
})

describe("blocking: errors", () => {
  test("a contact that is neither E.164 nor a LID is 400 with one readable message; unknown fields too", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant()
    expect(expectErrorEnvelope(await block(key, { fromPhoneId: phone.id, contact: "14155550199" }), 400, "Bad Request")).toEqual([
      "contact must be an E.164 number (+ and 8–15 digits) or a …@lid JID",
    ])
    expect((await block(key, { fromPhoneId: phone.id, contact: "+14155550199", extra: 1 })).status).toBe(400)
  })

  test("test keys: +12025550101 is not on WhatsApp (404); an unknown phone is 404", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant()
    expect(expectErrorEnvelope(await block(key, { fromPhoneId: phone.id, contact: "+12025550101" }), 404, "Not Found")).toEqual(["+12025550101 is not on WhatsApp"])
    expect((await blocked(key, "+19995550000")).status).toBe(404)
  })

  test("live keys: WhatsApp refusing or not answering is 502, never reported as blocked; a phone not connected is 400", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant({ env: "live" })
    expect((await block(key, { fromPhoneId: phone.id, contact: "+14155550199" })).status).toBe(400)
    await h.connectPhone(phone)
    h.gateway.contacts.error = new Error("item-not-found")
    expect(expectErrorEnvelope(await block(key, { fromPhoneId: phone.id, contact: "+14155550199" }), 502, "Bad Gateway")).toEqual([
      "WhatsApp did not block +14155550199; retry after a moment",
    ])
    expect((await blocked(key, phone.id)).status).toBe(502)
  })
})

describe("blocking: security", () => {
  test("block and unblock need contacts:write; the list needs contacts:read (or write)", async () => {
    h = await createHarness()
    const { account, phone } = await h.seedTenant()
    const reader = await h.seedKey(account.id, { scopes: ["contacts:read"] })
    expect((await block(reader, { fromPhoneId: phone.id, contact: "+14155550199" })).status).toBe(403)
    expect((await block(reader, { fromPhoneId: phone.id, contact: "+14155550199" }, "unblock")).status).toBe(403)
    expect((await blocked(reader, phone.id)).status).toBe(200)
    const sender = await h.seedKey(account.id, { scopes: ["messages:send"] })
    expect((await blocked(sender, phone.id)).status).toBe(403)
  })

  test("a key cannot block through, or read the list of, another account's phone", async () => {
    h = await createHarness()
    const mine = await h.seedTenant()
    const theirs = await h.seedTenant()
    await block(theirs.key, { fromPhoneId: theirs.phone.id, contact: "+14155550199" })
    expect((await block(mine.key, { fromPhoneId: theirs.phone.id, contact: "+14155550188" })).status).toBe(404)
    expect((await blocked(mine.key, theirs.phone.id)).status).toBe(404)
    expect((await blocked(theirs.key, theirs.phone.id)).body.data).toEqual({ contacts: ["+14155550199"] })
  })
})
