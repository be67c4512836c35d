import { describe, expect, test } from "bun:test"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"

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

export function describeHistorySettings(label: string, run: ScenarioRun): void {
  const live = liveScenarioWorld(run, { keyName: "history", scopes: ["messages:read"] })

  /** Adds a phone, sets its history settings (when given) and pairs it by QR. */
  async function pairWith(phoneNumber: string, settings?: Record<string, unknown>): Promise<void> {
    const phoneId: string = (await live.wagate.adminOk("POST", `/accounts/${live.wagate.accountId}/phones`, { phoneNumber })).id
    if (settings) await live.wagate.adminOk("PUT", `/phones/${phoneId}/history-settings`, settings)
    await live.wagate.adminOk("POST", `/phones/${phoneId}/connect`, { method: "qr" })
    await live.sim.primary(phoneNumber).scanShownQr(async () => (await live.wagate.adminOk("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined)
    await live.api.phoneWithStatus(phoneId, "connected", 20_000)
  }

  describe(`history settings against the WhatsApp simulator, over TLS, ${label}`, () => {
    test("a phone set to full history asks WhatsApp for its full sync when it links; one left at the default does not", async () => {
      await pairWith(FULL, { historySync: "full", historyDays: 3650 })
      expect(live.sim.history.deviceProps(FULL)?.requireFullSync).toBe(true)
      await pairWith(RECENT)
      expect(live.sim.history.deviceProps(RECENT)?.requireFullSync).toBe(false)
    }, STEP_TIMEOUT_MS)
  })
}
