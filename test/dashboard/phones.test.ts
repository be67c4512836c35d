import { describe, expect, test } from "bun:test"
import type { Harness } from "../helpers/harness"
import { expectEscaped, HOSTILE, ORIGIN, type DashboardClient, signedInForEachTest } from "../helpers/dashboard"
import { addPhone } from "../../src/domain/phones"
import type { AccountRow } from "../../src/store/accounts"

let h: Harness
let client: DashboardClient
let account: AccountRow
signedInForEachTest((made) => void ({ h, client, account } = made))

/** Reads SSE messages from a live region's stream until `until` matches one (or the reads run out). */
async function readLive(res: Response, until: (html: string) => boolean, act: () => void | Promise<void> = () => {}): Promise<string[]> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  const messages: string[] = []
  let buffer = ""
  let acted = false
  for (let reads = 0; reads < 50; reads++) {
    const { value, done } = await reader.read()
    if (done) break
    buffer += decoder.decode(value)
    let end: number
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const data = block
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .join("\n")
      if (data) messages.push(data)
    }
    if (!acted && messages.length > 0) {
      acted = true
      await act()
    }
    if (messages.some(until)) break
  }
  await reader.cancel()
  return messages
}

describe("dashboard: phones", () => {
  test("the phones page has the 'Add phone' form with 'Phone number' and 'Display name'", async () => {
    const { status, html } = await client.get(`/dashboard/phones?account=${account.id}`)
    expect(status).toBe(200)
    expect(html).toContain('<label for="phone-number">Phone number</label>')
    expect(html).toContain('<label for="display-name">Display name</label>')
    expect(html).toContain('<button type="submit">Add phone</button>')
  })

  test("adding a phone leads to its page, which says it is not paired and offers both pairings", async () => {
    const res = await client.post(`/dashboard/phones?account=${account.id}`, { phoneNumber: "+14155550123", displayName: "Support" })
    expect(res.status).toBe(303)
    const location = res.headers.get("location")!
    expect(location).toMatch(new RegExp(`^/dashboard/phones/ph_[0-9a-z]+\\?account=${account.id}&env=test$`))
    const page = await client.get(location)
    expect(page.html).toContain("<h1>Support</h1>")
    expect(page.html).toContain("Not paired")
    expect(page.html).toContain(">Pair by QR</button>")
    expect(page.html).toContain(">Pair by code</button>")
    const list = await client.get(`/dashboard/phones?account=${account.id}`)
    expect(list.html).toContain("+14155550123")
  })

  test("an invalid number shows the domain's reason beside the form and keeps what was typed", async () => {
    const res = await client.post(`/dashboard/phones?account=${account.id}`, { phoneNumber: "555", displayName: "Desk" })
    expect(res.status).toBe(400)
    expect(res.html).toContain("Phone number must be an E.164 number")
    expect(res.html).toContain('value="Desk"')
  })

  test("a number already in use is a 409 with the reason", async () => {
    await h.seedPhone(account.id, "+14155550124")
    const res = await client.post(`/dashboard/phones?account=${account.id}`, { phoneNumber: "+14155550124" })
    expect(res.status).toBe(409)
    expect(res.html).toContain("+14155550124")
  })

  test("removing asks for confirmation first, then removes the phone", async () => {
    const phone = await h.seedPhone(account.id, "+14155550125")
    const list = await client.get(`/dashboard/phones?account=${account.id}`)
    expect(list.html).toContain('<details class="confirm"><summary>Remove</summary>')
    expect(list.html).toContain(">Remove +14155550125</button>")
    const res = await client.post(`/dashboard/phones/${phone.id}/remove?account=${account.id}`)
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe(`/dashboard/phones?account=${account.id}&env=test&removed=%2B14155550125`)
    expect(h.services.sqlite!.query("SELECT id FROM phones").all()).toEqual([])
  })

  test("an unknown phone is a 404 page", async () => {
    const res = await client.get("/dashboard/phones/ph_nothere")
    expect(res.status).toBe(404)
    expect(res.html).toContain("Not found")
  })

  test("phone display names, account names and e-mails are escaped on every page that shows them", async () => {
    const hostileAccount = await h.seedAccount({ name: `${HOSTILE.script} ${HOSTILE.attribute}`, email: HOSTILE.email })
    const phone = await addPhone(h.services.ctx, hostileAccount.id, "+14155550126", `${HOSTILE.script} ${HOSTILE.attribute}`)
    const names = [HOSTILE.script, HOSTILE.attribute]
    for (const path of [`/dashboard?account=${hostileAccount.id}`, `/dashboard/phones?account=${hostileAccount.id}`, `/dashboard/phones/${phone.id}`]) {
      expectEscaped((await client.get(path)).html, names)
    }
    expectEscaped((await client.get(`/dashboard/accounts?account=${hostileAccount.id}`)).html, [...names, HOSTILE.email])
  })
})

describe("dashboard: a phone's connection", () => {
  test("status words follow the connection: Pairing with the QR as SVG, then Connected", async () => {
    const phone = await h.seedPhone(account.id, "+14155550127")
    const pair = await client.post(`/dashboard/phones/${phone.id}/connect?account=${account.id}`, { method: "qr" })
    expect(pair.status).toBe(303)
    h.gateway.current(phone.id).showQr("2@first-qr")
    await h.settle()
    const pairing = await client.get(`/dashboard/phones/${phone.id}`)
    expect(pairing.html).toContain(">Pairing</span>")
    expect(pairing.html).toContain('data-qr="2@first-qr"')
    expect(pairing.html).toMatch(/<div class="qr" data-qr="2@first-qr" role="img" aria-label="Pairing QR code"><svg [^>]*viewBox/)
    h.gateway.current(phone.id).open(phone.phoneNumber)
    await h.settle()
    const connected = await client.get(`/dashboard/phones/${phone.id}`)
    expect(connected.html).toContain(">Connected</span>")
    expect(connected.html).not.toContain("data-qr")
    expect(connected.html).toContain(">Disconnect</button>")
  })

  test("pairing by code shows the code to type", async () => {
    const phone = await h.seedPhone(account.id, "+14155550128")
    await client.post(`/dashboard/phones/${phone.id}/connect`, { method: "code" })
    expect(h.gateway.current(phone.id).connects).toEqual([{ method: "code", phoneNumber: "+14155550128" }])
    h.gateway.current(phone.id).showPairingCode("WXYZ1234")
    await h.settle()
    expect((await client.get(`/dashboard/phones/${phone.id}`)).html).toContain('data-pairing-code="WXYZ1234"')
  })

  test("the live region replaces the QR in place as WhatsApp rotates it, and turns to Connected", async () => {
    const phone = await h.seedPhone(account.id, "+14155550129")
    await client.post(`/dashboard/phones/${phone.id}/connect`, { method: "qr" })
    h.gateway.current(phone.id).showQr("2@qr-one")
    await h.settle()
    const res = await h.app.handle(new Request(`${ORIGIN}/dashboard/phones/${phone.id}/live`, { headers: { cookie: client.cookie } }))
    expect(res.headers.get("content-type")).toStartWith("text/event-stream")
    expect(res.headers.get("content-security-policy")).toStartWith("default-src 'self'")
    expect(res.headers.get("x-content-type-options")).toBe("nosniff")
    const session = h.gateway.current(phone.id)
    const messages = await readLive(
      res,
      (html) => html.includes(">Connected</span>"),
      async () => {
        session.showQr("2@qr-two")
        await h.settle()
        session.open(phone.phoneNumber)
        await h.settle()
      },
    )
    expect(messages[0]).toContain('data-qr="2@qr-one"')
    expect(messages.some((m) => m.includes('data-qr="2@qr-two"') && m.includes("<svg"))).toBe(true)
    expect(messages.at(-1)).toContain(">Connected</span>")
  })

  test("the phones list's live region re-renders the account's phones as their status changes", async () => {
    const phone = await h.seedPhone(account.id, "+14155550133")
    const other = await h.seedAccount({ name: "Other" })
    const foreign = await h.seedPhone(other.id, "+14155550134")
    const res = await h.app.handle(new Request(`${ORIGIN}/dashboard/phones/live?account=${account.id}`, { headers: { cookie: client.cookie } }))
    const pending = readLive(res, (html) => html.includes(">Connected</span>"))
    // Another account's phone changes nothing on this list; this account's phone does.
    await h.connectPhone(foreign)
    await h.connectPhone(phone)
    const messages = await pending
    expect(messages.every((m) => !m.includes("+14155550134"))).toBe(true)
    expect(messages.at(-1)).toContain("+14155550133")
    expect(messages.at(-1)).toContain(">Connected</span>")
  })

  test("a live stream ends at its next update once its session has ended", async () => {
    const phone = await h.seedPhone(account.id, "+14155550132")
    await client.post(`/dashboard/phones/${phone.id}/connect`, { method: "qr" })
    const res = await h.app.handle(new Request(`${ORIGIN}/dashboard/phones/${phone.id}/live`, { headers: { cookie: client.cookie } }))
    const reader = res.body!.getReader()
    await reader.read()
    expect((await client.post("/dashboard/sign-out")).status).toBe(303)
    h.gateway.current(phone.id).showQr("2@after-sign-out")
    await h.settle()
    const decoder = new TextDecoder()
    let rest = ""
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      rest += decoder.decode(value)
    }
    expect(rest).not.toContain("after-sign-out")
  })

  test("the live region needs a session", async () => {
    const phone = await h.seedPhone(account.id)
    const res = await h.app.handle(new Request(`${ORIGIN}/dashboard/phones/${phone.id}/live`))
    expect(res.status).toBe(303)
  })

  test("disconnect and log out act on the session manager", async () => {
    const phone = await h.seedPhone(account.id, "+14155550130")
    await h.connectPhone(phone)
    expect((await client.post(`/dashboard/phones/${phone.id}/disconnect`)).status).toBe(303)
    expect((await client.get(`/dashboard/phones/${phone.id}`)).html).toContain(">Disconnected</span>")
    expect((await client.post(`/dashboard/phones/${phone.id}/logout`)).status).toBe(303)
    expect((await client.get(`/dashboard/phones/${phone.id}`)).html).toContain(">Logged out</span>")
  })

  test("why the last attempt failed, and the WhatsApp Web version, are shown on the phone's page and the overview", async () => {
    const phone = await h.seedPhone(account.id, "+14155550131")
    await h.connectPhone(phone)
    h.gateway.current(phone.id).announce("2.3000.1")
    h.gateway.current(phone.id).drop("forbidden")
    await h.settle()
    const state = await h.services.sessions.pairingState(phone.id)
    expect(state.lastError?.code).toBe("forbidden")
    const { html } = await client.get(`/dashboard/phones/${phone.id}`)
    expect(html).toContain("<dt>Last failure</dt><dd><strong>forbidden</strong>")
    expect(html).toContain(state.lastError!.message.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll('"', "&quot;"))
    expect(html).toContain("<dt>WhatsApp Web version</dt><dd>2.3000.1</dd>")
    expect(html).not.toContain("Version expires")
    const overview = await client.get(`/dashboard?account=${account.id}`)
    expect(overview.html).toContain(": forbidden: ")
  })

  test("the expiry WhatsApp announced for the phone's version is shown on its page and kept on the phone's row", async () => {
    const phone = await h.seedPhone(account.id, "+14155550132")
    await h.connectPhone(phone)
    h.gateway.current(phone.id).announce("2.3000.1")
    await h.settle()
    const expiresAtMs = Date.parse("2026-12-10T00:00:00.000Z")
    h.gateway.current(phone.id).expires(expiresAtMs, "2.3000.1")
    await h.settle()
    const { html } = await client.get(`/dashboard/phones/${phone.id}`)
    expect(html).toContain("<dt>Version expires</dt>")
    expect(html).toContain("2026-12-10")
    expect(await h.services.ctx.store.findPhone(phone.id)).toMatchObject({ waVersion: "2.3000.1", clientExpiresAtMs: expiresAtMs })
  })

})
