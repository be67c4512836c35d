import { afterEach, describe, expect, test } from "bun:test"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"
import { liveTenant } from "../live/live-helpers"

/* GET and PUT /admin/v1/phones/{phoneId}/history-settings (docs/admin.md § "History on pairing"). */

let h: Harness
afterEach(async () => {
  await h?.close()
})

const path = (phoneRef: string) => `/admin/v1/phones/${encodeURIComponent(phoneRef)}/history-settings`

describe("history settings: success", () => {
  test("a phone asks for recent history of 90 days until set; a field left out keeps its value", async () => {
    h = await createHarness()
    const { phone } = await liveTenant(h)
    const admin = await h.adminToken()
    const before = await h.request("GET", path(phone.phoneNumber), { key: admin })
    expect([before.status, before.body.data]).toMatchObject([200, { phoneId: phone.id, historySync: "recent", historyDays: 90 }])
    const full = await h.request("PUT", path(phone.id), { key: admin, body: { historySync: "full", historyDays: 3650 } })
    expect([full.status, full.body.data]).toMatchObject([200, { phoneId: phone.id, historySync: "full", historyDays: 3650 }])
    const days = await h.request("PUT", path(phone.id), { key: admin, body: { historyDays: 1 } })
    expect(days.body.data).toMatchObject({ historySync: "full", historyDays: 1 })
    expect((await h.request("GET", path(phone.id), { key: admin })).body.data).toMatchObject({ historySync: "full", historyDays: 1 })
  })
})

describe("history settings: errors", () => {
  test("historyDays out of 1..3650, not whole, or an unknown mode is refused with 400 and changes nothing", async () => {
    h = await createHarness()
    const { phone } = await liveTenant(h)
    const admin = await h.adminToken()
    for (const historyDays of [0, 3651, 1.5, "30"]) {
      const res = await h.request("PUT", path(phone.id), { key: admin, body: { historyDays } })
      expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual(["historyDays must be a whole number from 1 to 3650"])
    }
    const mode = await h.request("PUT", path(phone.id), { key: admin, body: { historySync: "all" } })
    expect(expectErrorEnvelope(mode, 400, "Bad Request")).toEqual(["historySync must be one of none, recent, full"])
    expect((await h.request("GET", path(phone.id), { key: admin })).body.data).toMatchObject({ historySync: "recent", historyDays: 90 })
  })

  test("an unknown phone is 404", async () => {
    h = await createHarness()
    const admin = await h.adminToken()
    expect((await h.request("GET", path("ph_nope"), { key: admin })).status).toBe(404)
    expect((await h.request("PUT", path("+15550009999"), { key: admin, body: { historyDays: 30 } })).status).toBe(404)
  })
})

describe("history settings: security", () => {
  test("an API key is not an admin token: 401", async () => {
    h = await createHarness()
    const { phone, key } = await liveTenant(h)
    expect((await h.request("GET", path(phone.id), { key })).status).toBe(401)
    expect((await h.request("PUT", path(phone.id), { key, body: { historyDays: 30 } })).status).toBe(401)
  })
})
