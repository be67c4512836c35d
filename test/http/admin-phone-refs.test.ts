import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"

/* The admin phone routes name a phone by its ph_ id or by its URL-encoded E.164 number, as /v1 does. */

let h: Harness
let admin: string
beforeEach(async () => {
  h = await createHarness()
  admin = await h.adminToken()
})
afterEach(() => h.close())

const NUMBER = "+14155550123"
const ENCODED = encodeURIComponent(NUMBER)
const call = (method: string, path: string) => h.request(method, `/admin/v1${path}`, { key: admin })

describe("an admin phone route named by the encoded E.164 number", () => {
  test("connect, pairing, disconnect and logout act on the phone the number names", async () => {
    const account = await h.seedAccount()
    const phone = await h.seedPhone(account.id, NUMBER)
    const connected = await call("POST", `/phones/${ENCODED}/connect`)
    expect(connected.status).toBe(200)
    expect(connected.body.data.connectionStatus).toBe("pairing")
    h.gateway.current(phone.id).showQr("2@by-number")
    expect((await call("GET", `/phones/${ENCODED}/pairing`)).body.data).toMatchObject({ connectionStatus: "pairing", qr: "2@by-number" })
    h.gateway.current(phone.id).open(NUMBER)
    await h.settle()
    const disconnected = await call("POST", `/phones/${ENCODED}/disconnect`)
    expect(disconnected.status).toBe(200)
    expect(disconnected.body.data).toMatchObject({ id: phone.id, phoneNumber: NUMBER, connectionStatus: "disconnected" })
    const loggedOut = await call("POST", `/phones/${ENCODED}/logout`)
    expect(loggedOut.status).toBe(200)
    expect(loggedOut.body.data).toMatchObject({ id: phone.id, connectionStatus: "logged_out" })
  })

  test("the pairing event stream opens by number and starts with the phone's state", async () => {
    const account = await h.seedAccount()
    await h.seedPhone(account.id, NUMBER)
    const res = await h.app.handle(new Request(`http://localhost/admin/v1/phones/${ENCODED}/pairing/events`, { headers: { authorization: `Bearer ${admin}` } }))
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("text/event-stream")
    const reader = res.body!.getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    expect(first).toStartWith("event: pairing\ndata: ")
    expect(JSON.parse(first.split("data: ")[1]!).connectionStatus).toBe("unpaired")
    await reader.cancel()
  })

  test("DELETE by number removes the phone", async () => {
    const account = await h.seedAccount()
    const phone = await h.seedPhone(account.id, NUMBER)
    const removed = await call("DELETE", `/phones/${ENCODED}`)
    expect(removed.status).toBe(200)
    expect(removed.body.data.id).toBe(phone.id)
    expect((await call("GET", `/accounts/${account.id}/phones`)).body.data).toEqual([])
  })

  test.each([
    ["POST", "/connect"],
    ["GET", "/pairing"],
    ["GET", "/pairing/events"],
    ["POST", "/disconnect"],
    ["POST", "/logout"],
    ["DELETE", ""],
  ])("%s …%s for an unknown number is a 404 naming it", async (method, suffix) => {
    const res = await call(method, `/phones/%2B14155550999${suffix}`)
    expect(expectErrorEnvelope(res, 404, "Not Found")).toEqual(["Phone number +14155550999 not found"])
  })

  test.each([
    ["POST", "/connect"],
    ["GET", "/pairing"],
    ["POST", "/disconnect"],
    ["POST", "/logout"],
  ])("%s …%s by ph_ id still works", async (method, suffix) => {
    const account = await h.seedAccount()
    const phone = await h.seedPhone(account.id, NUMBER)
    expect((await call(method, `/phones/${phone.id}${suffix}`)).status).toBe(200)
  })
})
