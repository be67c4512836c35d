import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { isWABusinessPlatform } from "@whiskeysockets/baileys"
import { pairWithQr } from "./baileys-client"
import { startWaSim, type WaSim } from "./sim"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Runs the simulator and real Baileys: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Which app the phone runs, as pair-success tells real, unmodified Baileys 7.0.0-rc14 (business.ts). */

let cleanups: (() => unknown)[] = []
beforeEach(() => {
  cleanups = []
})
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
}, SLOW_HOOK_TIMEOUT_MS)

async function simulator(): Promise<WaSim> {
  const sim = await startWaSim({ advSecretRotation: false })
  cleanups.push(() => sim.stop())
  return sim
}

describe("wa-sim: the phone's app at pairing", () => {
  test("a phone running the WhatsApp Business app pairs with platform smba and its business name: Baileys counts it a business", async () => {
    const sim = await simulator()
    sim.businessApp("+15550001111", "Corner Shop")
    const { auth, first, client } = await pairWithQr(sim, "+15550001111")
    cleanups.push(() => first.end(), () => client.end())
    expect(auth.state.creds.platform).toBe("smba")
    expect(auth.state.creds.me?.name).toBe("Corner Shop")
    expect(isWABusinessPlatform(auth.state.creds.platform!)).toBe(true)
  })

  test("an ordinary phone pairs with platform android and no business name: Baileys does not count it a business", async () => {
    const sim = await simulator()
    const { auth, first, client } = await pairWithQr(sim, "+15550002222")
    cleanups.push(() => first.end(), () => client.end())
    expect(auth.state.creds.platform).toBe("android")
    expect(isWABusinessPlatform(auth.state.creds.platform!)).toBe(false)
  })
})
