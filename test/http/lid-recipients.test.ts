import { afterEach, describe, expect, test } from "bun:test"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"
import { liveTenant, send } from "../live/live-helpers"

/* A hidden number's `…@lid` JID as `to` (docs/api.md § "Send: POST /v1/messages/send"). */

const LID = "123456789012345@lid"
const TO_MESSAGE = "to must be an E.164 number (+ and 8–15 digits), a group JID or a …@lid JID"

let h: Harness
afterEach(() => h.close())

describe("a …@lid recipient", () => {
  test("a live send goes to that chat as it is: no number check is asked of WhatsApp", async () => {
    h = await createHarness()
    const { key, phone } = await liveTenant(h)
    const res = await send(h, key, { fromPhoneId: phone.id, to: LID, content: "hello" })
    expect(res.status).toBe(201)
    expect(res.body.data).toMatchObject({ to: LID, isGroup: false, groupId: null, status: "pending" })
    await h.settle()
    expect(h.gateway.sentBy(phone.id).map((p) => p.toJid)).toEqual([LID])
    expect(h.gateway.numberChecks).toEqual([])
  })

  test("a test key treats it as an ordinary recipient: sent, then delivered and read", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant()
    const res = await send(h, key, { fromPhoneId: phone.id, to: LID, content: "hello" })
    expect(res.body.data).toMatchObject({ to: LID, status: "sent" })
  })

  test("presence reaches the chat of a …@lid as it is", async () => {
    h = await createHarness()
    const { key, phone } = await liveTenant(h)
    expect((await h.request("POST", "/v1/presence", { key, body: { fromPhoneId: phone.id, to: LID, state: "typing" } })).status).toBe(204)
    expect(h.gateway.presences).toEqual([{ phoneId: phone.id, toJid: LID, state: "typing" }])
  })

  test.each(["abc@lid", "@lid", "12345@lid", "1234567890123456789012@lid", "123456789012345@LID", "123456789012345@lid.us", "+123456789012345@lid"])(
    "%p is refused with one readable message",
    async (to) => {
      h = await createHarness()
      const { key, phone } = await h.seedTenant()
      expect(expectErrorEnvelope(await send(h, key, { fromPhoneId: phone.id, to, content: "x" }), 400, "Bad Request")).toEqual([TO_MESSAGE])
    },
  )
})
