import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { SLOW_HOOK_TIMEOUT_MS } from "../helpers/timeouts"
import type { WaSim } from "../wa-sim"
import type { WagateProcess } from "./live-world"
import { startTlsWorld, type TlsWorld } from "./tls-world"

/*
 * A phone's history settings reach WhatsApp at linking (docs/admin.md § "History on pairing"), with
 * wagate as a real process and real Baileys through the TLS front: `full` makes the new device
 * ask for WhatsApp's full sync (DeviceProps.requireFullSync, as the simulator records it,
 * test/wa-sim/README.md § "History sync"); the default does not. history-settings-source.test.ts
 * runs it against `bun src/main.ts serve`.
 */

const FULL = "+15550091111"
const RECENT = "+15550091112"
const STEP_TIMEOUT_MS = 60_000

export function describeHistorySettings(label: string, options: { prepare: () => Promise<string[] | undefined>; prepareTimeoutMs: number }): void {
  let world: TlsWorld
  let sim: WaSim
  let wagate: WagateProcess

  beforeAll(async () => {
    world = await startTlsWorld({ command: await options.prepare(), keyName: "history", scopes: ["messages:read"] })
    ;({ sim, wagate } = world)
  }, options.prepareTimeoutMs + SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await world?.stop()
  }, SLOW_HOOK_TIMEOUT_MS)

  /** Adds a phone, sets its history settings (when given) and pairs it by QR. */
  async function pairWith(phoneNumber: string, settings?: Record<string, unknown>): Promise<void> {
    const phoneId: string = (await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber })).id
    if (settings) await wagate.adminOk("PUT", `/phones/${phoneId}/history-settings`, settings)
    await wagate.adminOk("POST", `/phones/${phoneId}/connect`, { method: "qr" })
    await sim.primary(phoneNumber).scanShownQr(async () => (await wagate.adminOk("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined)
    await world.api.phoneWithStatus(phoneId, "connected", 20_000)
  }

  describe(`history settings against the WhatsApp simulator, over TLS, ${label}`, () => {
    test("a phone set to full history asks WhatsApp for its full sync when it links; one left at the default does not", async () => {
      await pairWith(FULL, { historySync: "full", historyDays: 3650 })
      expect(sim.history.deviceProps(FULL)?.requireFullSync).toBe(true)
      await pairWith(RECENT)
      expect(sim.history.deviceProps(RECENT)?.requireFullSync).toBe(false)
    }, STEP_TIMEOUT_MS)
  })
}
