import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { pairWithQr, simSocketConfig, TestClient } from "./baileys-client"
import { startWaSim, type WaSim, type WaSimOptions } from "./sim"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Runs the simulator and real Baileys: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/**
 * The simulator's receiving stalls (receiving-stalls.ts, README § "Receiving stalls") against
 * real Baileys 7.0.0-rc14 with wagate's patch (patches/), no wagate: the marker that never comes
 * holds Baileys' buffer, and `offline="0"` on a live stanza is read as live only with the patch.
 */

const ME = "+15550001111"

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  cleanups.length = 0
}, SLOW_HOOK_TIMEOUT_MS)

async function world(options: WaSimOptions) {
  // Baileys 7.0.0-rc14 alone cannot pair through a secret rotation (sim.test.ts, "secret rotation").
  const sim = await startWaSim({ advSecretRotation: false, ...options })
  cleanups.push(() => sim.stop())
  const paired = await pairWithQr(sim, ME)
  cleanups.push(() => paired.first.end(), () => paired.client.end())
  return { sim, ...paired }
}

/** The texts of the messages a client upserted from others, with the upsert type. */
function inboundTexts(client: TestClient): [string, string][] {
  return client.upserts.filter((entry) => !entry.message.key.fromMe && entry.message.message?.conversation).map((entry) => [entry.type, entry.message.message!.conversation!])
}

/** Resolves once the client sent its receipt for message `id` (Baileys sends it after handling the message, buffered or not). */
function acked(sim: WaSim, client: TestClient, id: string): Promise<true> {
  return client.waitFor(() => (sim.clientStanzas.retained.some((entry) => entry.node.tag === "receipt" && entry.node.attrs.id === id) ? true : undefined), `the receipt of ${id}`)
}

describe("wa-sim: receiving stalls (WhiskeySockets/Baileys#2810)", () => {
  test("offlineMarker: false: after a login no <ib><offline> comes, and what the offline queue delivered stays in Baileys' buffer until someone flushes it", async () => {
    const { sim, auth, client } = await world({ offlineMarker: false })
    const alice = sim.contact({ phoneNumber: "+15550002222", autoReceipts: "none" })
    await client.end()
    await sim.waitFor(() => (sim.loggedInConnections(ME).length === 0 ? true : undefined), "the device to be away")
    const id = await sim.sendInbound(alice, { text: "while you were out" }, { to: ME })

    const back = new TestClient(simSocketConfig(sim, auth), auth)
    cleanups.push(() => back.end())
    await back.waitForOpen()
    await acked(sim, back, id)
    expect(back.connectionUpdates.some((update) => update.receivedPendingNotifications)).toBe(false)
    expect(back.sock.ev.isBuffering()).toBe(true)
    expect(inboundTexts(back)).toEqual([])
    // What wagate's watchdog does when the marker is late (src/whatsapp/baileys/offline-watchdog.ts).
    expect(back.sock.ev.flush()).toBe(true)
    await back.waitFor(() => (inboundTexts(back).length === 1 ? true : undefined), "the held message")
    expect(inboundTexts(back)).toEqual([["append", "while you were out"]])
  })

  test("liveOfflineZero: a live message marked offline=\"0\" is upserted as notify at once, even with the marker missing (fails on unpatched Baileys)", async () => {
    const { sim, client } = await world({ offlineMarker: false, liveOfflineZero: true })
    const alice = sim.contact({ phoneNumber: "+15550002222", autoReceipts: "none" })
    expect(client.connectionUpdates.some((update) => update.receivedPendingNotifications)).toBe(false)
    await sim.sendInbound(alice, { text: "live" }, { to: ME })
    // Unpatched, the stanza goes to the offline node processor: `append`, and held until Baileys' 30 s timeout.
    await client.waitFor(() => (inboundTexts(client).length === 1 ? true : undefined), "the live message")
    expect(inboundTexts(client)).toEqual([["notify", "live"]])
  })

  test("by default the marker follows every login and live stanzas carry no offline attribute", async () => {
    const { sim, client } = await world({})
    const alice = sim.contact({ phoneNumber: "+15550002222", autoReceipts: "none" })
    await client.waitFor(() => (client.connectionUpdates.some((update) => update.receivedPendingNotifications) ? true : undefined), "receivedPendingNotifications")
    await sim.sendInbound(alice, { text: "live" }, { to: ME })
    await client.waitFor(() => (inboundTexts(client).length === 1 ? true : undefined), "the live message")
    expect(inboundTexts(client)).toEqual([["notify", "live"]])
  })
})
