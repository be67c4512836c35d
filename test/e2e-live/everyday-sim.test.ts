import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { startWaSim, type SimContact, type WaSim } from "../wa-sim"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { ApiClient, poll, WagateProcess } from "./live-world"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * Everyday messaging beyond the seed (docs/api.md), with real Baileys against the simulator:
 * number checks in bulk and presence in a chat.
 */

const ME = "+15550031111"
let sim: WaSim
let wagate: WagateProcess
let api: ApiClient
let phoneId: string
let alice: SimContact
let bob: SimContact

beforeAll(async () => {
  sim = await startWaSim()
  alice = sim.contact({ phoneNumber: "+15550032222", name: "Alice" })
  bob = sim.contact({ phoneNumber: "+15550033333", name: "Bob" })
  sim.contact({ phoneNumber: "+15550034444", name: "Nobody", onWhatsApp: false })
  wagate = await WagateProcess.start({ WAGATE_WA_WS_URL: sim.wsUrl, WAGATE_LOG_LEVEL: process.env.WAGATE_LOG_LEVEL ?? "error" })
  const key = await wagate.adminOk("POST", `/accounts/${wagate.accountId}/keys`, { environment: "live", name: "everyday", scopes: ["messages:send", "messages:read"] })
  api = new ApiClient(wagate, key.key)
  phoneId = (await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber: ME })).id
  await wagate.adminOk("POST", `/phones/${phoneId}/connect`, { method: "qr" })
  await sim.primary(ME).scanShownQr(async () => (await wagate.adminOk("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined)
  await api.phoneWithStatus(phoneId, "connected")
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(async () => {
  await wagate?.dispose()
  await sim?.stop()
}, SLOW_HOOK_TIMEOUT_MS)

/** The chat states the phone sent to a contact, as the simulator received them (`composing media=audio` is recording). */
function chatStates(contact: SimContact): string[] {
  return sim.clientStanzas.retained
    .filter((s) => s.node.tag === "chatstate" && String(s.node.attrs.to ?? "").startsWith(contact.phoneNumber))
    .map((s) => {
      const state = Array.isArray(s.node.content) ? s.node.content[0] : undefined
      return state ? `${state.tag}${state.attrs.media ? ` media=${state.attrs.media}` : ""}` : ""
    })
}

describe("everyday messaging against the WhatsApp simulator", () => {
  test("numbers are checked in one bulk lookup: who is on WhatsApp, with the JID WhatsApp names", async () => {
    const res = await api.call("POST", "/contacts/check", { fromPhoneId: ME, numbers: [`+${alice.phoneNumber}`, "+15550034444", `+${bob.phoneNumber}`] })
    expect(res.status).toBe(200)
    expect(res.body.data).toEqual([
      { number: `+${alice.phoneNumber}`, onWhatsApp: true, jid: `${alice.phoneNumber}@s.whatsapp.net` },
      { number: "+15550034444", onWhatsApp: false, jid: null },
      { number: `+${bob.phoneNumber}`, onWhatsApp: true, jid: `${bob.phoneNumber}@s.whatsapp.net` },
    ])
  })

  test("typing, recording and paused reach the contact's chat as WhatsApp's chat states", async () => {
    for (const state of ["typing", "recording", "paused"]) {
      const res = await api.call("POST", "/presence", { fromPhoneId: ME, to: `+${alice.phoneNumber}`, state })
      expect(res.status).toBe(204)
    }
    const seen = await poll(() => (chatStates(alice).length >= 3 ? chatStates(alice) : undefined), "three chat states")
    expect(seen).toEqual(["composing", "composing media=audio", "paused"])
  })
})
