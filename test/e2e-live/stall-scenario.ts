import { describe, expect, test } from "bun:test"
import type { SimContact } from "../wa-sim"
import { DEFAULT_OFFLINE_MARKER_WAIT_MS } from "../../src/whatsapp/gateway"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"

/*
 * Receiving stalls (docs/live-whatsapp.md § "Receiving stalls", WhiskeySockets/Baileys#2810):
 * WhatsApp never sends the end-of-offline-queue marker after a login, and marks live stanzas
 * `offline="0"` (the simulator's `offlineMarker: false` and `liveOfflineZero`). Over the TLS
 * front, as in production; stall-source.test.ts and stall-binary.test.ts run it against
 * `bun src/main.ts serve` and the compiled executable, with the default watchdog wait.
 */

const ME = "+15550061111"
/** A live message must not wait for the watchdog: well under its wait. */
const LIVE_BOUND_MS = DEFAULT_OFFLINE_MARKER_WAIT_MS / 2
/** A held message arrives once the watchdog fires after the login: its wait, plus a login's worth of slack, and well under Baileys' own 30 s. */
const HELD_BOUND_MS = DEFAULT_OFFLINE_MARKER_WAIT_MS + 8_000
const HELD_TEST_TIMEOUT_MS = 60_000

export function describeReceivingStalls(label: string, run: ScenarioRun): void {
  let alice: SimContact
  let bob: SimContact
  const live = liveScenarioWorld(run, {
    keyName: "stalls",
    scopes: ["messages:read"],
    sim: { offlineMarker: false, liveOfflineZero: true },
    setUp: ({ sim }) => {
      alice = sim.contact({ phoneNumber: "+15550062222", name: "Alice" })
      bob = sim.contact({ phoneNumber: "+15550063333", name: "Bob" })
    },
    events: ["*"],
    pair: ME,
  })

  describe(`receiving stalls over TLS, ${label}`, () => {
    test('a live message marked offline="0" is a message.received at once while the marker is missing, not after the watchdog (the Baileys patch)', async () => {
      const sentAt = Date.now()
      await live.sim.sendInbound(alice, { text: "live while the marker is missing" }, { to: ME })
      const received = await live.hooks.next("message.received", (d) => d.content === "live while the marker is missing", LIVE_BOUND_MS)
      expect(received.from).toBe(`+${alice.phoneNumber}`)
      expect(Date.now() - sentAt).toBeLessThan(LIVE_BOUND_MS)
    })

    test(
      "what WhatsApp held while the phone was away is a message.received within the watchdog's wait after the reconnect though the marker never comes; the pairing state says when the watchdog released it",
      async () => {
        await live.wagate.adminOk("POST", `/phones/${live.phoneId}/disconnect`)
        await live.sim.waitFor(() => (live.sim.loggedInConnections(ME).length === 0 ? true : undefined), "the phone to be away", 10_000)
        await live.sim.sendInbound(bob, { text: "held while away" }, { to: ME })
        expect(live.sim.heldFor(ME, 1)).toBeGreaterThan(0)
        const before = (await live.wagate.adminOk("GET", `/phones/${live.phoneId}/pairing`)).offlineWatchdogAt as string | null

        const reconnectAt = Date.now()
        await live.wagate.adminOk("POST", `/phones/${live.phoneId}/connect`, { method: "qr" })
        const received = await live.hooks.next("message.received", (d) => d.content === "held while away", HELD_BOUND_MS)
        expect(received.from).toBe(`+${bob.phoneNumber}`)
        // Not before the wait: Baileys held it until the watchdog released it.
        expect(Date.now() - reconnectAt).toBeGreaterThanOrEqual(DEFAULT_OFFLINE_MARKER_WAIT_MS - 1_000)
        const state = await live.wagate.adminOk("GET", `/phones/${live.phoneId}/pairing`)
        expect(state.offlineWatchdogAt).not.toBeNull()
        expect(state.offlineWatchdogAt).not.toBe(before)
        expect(Date.parse(state.offlineWatchdogAt)).toBeGreaterThanOrEqual(reconnectAt)
      },
      HELD_TEST_TIMEOUT_MS,
    )
  })
}
