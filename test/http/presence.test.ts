import { afterEach, describe, expect, test } from "bun:test"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"

/* POST /v1/presence (docs/api.md § "Presence: POST /v1/presence"): success, errors, security. */

let h: Harness
afterEach(() => h.close())

const presence = (key: string, body: unknown) => h.request("POST", "/v1/presence", { key, body })

describe("presence: success", () => {
  test("a test key: 204 and nothing reaches WhatsApp", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant()
    const res = await presence(key, { fromPhoneId: phone.phoneNumber, to: "+14155550199", state: "typing" })
    expect(res.status).toBe(204)
    expect(res.body).toBe("")
    expect(h.gateway.presences).toEqual([])
  })

  test.each([
    { state: "typing", to: "+14155550199", jid: "14155550199@s.whatsapp.net" },
    { state: "recording", to: "+14155550199", jid: "14155550199@s.whatsapp.net" },
    { state: "paused", to: "120363000000000009@g.us", jid: "120363000000000009@g.us" },
  ])("a live key shows $state in the chat of $to (a number through its number check, a group as it is)", async ({ state, to, jid }) => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant({ env: "live" })
    await h.connectPhone(phone)
    expect((await presence(key, { fromPhoneId: phone.id, to, state })).status).toBe(204)
    expect(h.gateway.presences).toEqual([{ phoneId: phone.id, toJid: jid, state }])
  })
})

describe("presence: errors", () => {
  test.each([
    { name: "an unknown state", body: { to: "+14155550199", state: "online" }, message: "state must be one of typing, recording, paused" },
    { name: "a bad recipient", body: { to: "4155550199", state: "typing" }, message: "to must be an E.164 number (+ and 8–15 digits), a group JID or a …@lid JID" },
    { name: "no state", body: { to: "+14155550199" }, message: "state is required" },
  ])("$name: 400 with one readable message", async ({ body, message }) => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant()
    expect(expectErrorEnvelope(await presence(key, { fromPhoneId: phone.id, ...body }), 400, "Bad Request")).toEqual([message])
  })

  test("a number that is not on WhatsApp: 400, nothing shown", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant({ env: "live" })
    await h.connectPhone(phone)
    h.gateway.numbers.set("+14155550100", null)
    expect(expectErrorEnvelope(await presence(key, { fromPhoneId: phone.id, to: "+14155550100", state: "typing" }), 400, "Bad Request")).toEqual([
      "+14155550100 is not on WhatsApp",
    ])
    expect(h.gateway.presences).toEqual([])
  })

  test("a live phone that is not connected: 400 that says its status", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant({ env: "live" })
    const res = await presence(key, { fromPhoneId: phone.id, to: "+14155550199", state: "typing" })
    expect(expectErrorEnvelope(res, 400, "Bad Request")[0]).toMatch(/^Phone \+\d+ is not connected \(status: \w+\)$/)
  })
})

describe("presence: security", () => {
  test("another account's phone is a 404", async () => {
    h = await createHarness()
    const mine = await h.seedTenant({ env: "live" })
    const theirs = await h.seedTenant({ env: "live" })
    await h.connectPhone(theirs.phone)
    expectErrorEnvelope(await presence(mine.key, { fromPhoneId: theirs.phone.id, to: "+14155550199", state: "typing" }), 404, "Not Found")
    expect(h.gateway.presences).toEqual([])
  })
})
