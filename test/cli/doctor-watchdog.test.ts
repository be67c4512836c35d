import { describe, expect, test } from "bun:test"
import { phoneCheck } from "../../src/cli/doctor"
import { phone } from "../store/contract/fixtures"

const suggest = (words: string) => `wagate ${words}`

describe("wagate doctor: the offline-marker watchdog (docs/live-whatsapp.md § \"Receiving stalls\")", () => {
  test("a phone whose held inbound messages the watchdog released says when, connected or not", () => {
    const at = Date.UTC(2026, 10, 27, 9, 30, 0)
    const connected = phoneCheck(phone({ connectionStatus: "connected", lastConnectedAtMs: at - 10_000, offlineWatchdogAtMs: at }), suggest)
    expect(connected.status).toBe("ok")
    expect(connected.detail).toContain("at 2026-11-27T09:30:00.000Z WhatsApp's offline marker did not come after login and wagate's watchdog released the held inbound messages")
    const down = phoneCheck(phone({ connectionStatus: "disconnected", offlineWatchdogAtMs: at }), suggest)
    expect(down.status).toBe("fail")
    expect(down.detail).toContain("wagate's watchdog released the held inbound messages")
  })

  test("a phone whose marker always came says nothing of it", () => {
    const check = phoneCheck(phone({ connectionStatus: "connected", lastConnectedAtMs: Date.UTC(2026, 10, 27) }), suggest)
    expect(check.detail).not.toContain("watchdog")
  })
})
