import { afterEach, expect, setDefaultTimeout, test } from "bun:test"
import { join } from "node:path"
import { childEnv, Proc } from "../helpers/wagate-process"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { startWaSim } from "./sim"
import { TestCa } from "./test-ca"
import { startTlsFront } from "./tls-front"

// Spawns a process and runs the simulator: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const ME = "+15550001111"
const ALICE = "15550002222@s.whatsapp.net"
const BOB = "15550003333@s.whatsapp.net"

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
}, SLOW_HOOK_TIMEOUT_MS)

/** The newest JSON line the child reported that has `key`. */
function reported(child: Proc, key: string): any {
  return child.out
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line))
    .findLast((line) => key in line)?.[key]
}

test("over the TLS front, unmodified Baileys gets the key share, syncs the phone's app state, writes a patch and follows server_sync", async () => {
  const sim = await startWaSim({ advSecretRotation: false })
  cleanups.push(() => sim.stop())
  const ca = await TestCa.create()
  cleanups.push(() => ca.dispose())
  const front = await startTlsFront({ upstreamUrl: sim.wsUrl, certificate: await ca.issue() })
  cleanups.push(() => front.stop())
  const phone = sim.phoneAppState(ME)
  phone.archive(ALICE)
  phone.contact(ALICE, "Alice Liddell")

  const env = { APP_STATE_WS_URL: front.wsUrl, APP_STATE_ALICE: ALICE, APP_STATE_BOB: BOB, NODE_EXTRA_CA_CERTS: await ca.trustFile(sim.mediaCaPem) }
  const child = new Proc([], childEnv(env), { command: [process.execPath, join(import.meta.dir, "app-state-tls-child.ts")] })
  cleanups.push(() => child.kill())
  await child.waitFor(/"qr":/)
  await sim.primary(ME).scanQr(reported(child, "qr"))

  await child.waitFor(/"keyId":/)
  expect(reported(child, "keyId")).toBe(sim.appState.of(sim.primary(ME).account).keyId.toString("base64"))
  await child.waitFor(/"synced":/)
  expect(reported(child, "synced")).toMatchObject({ alice: { archived: true }, aliceName: "Alice Liddell" })
  await child.waitFor(/"modified":/)
  expect(phone.chat(ALICE)).toMatchObject({ archived: true, pinned: true })
  expect(phone.refusals).toEqual([])

  phone.archive(BOB)
  await child.waitFor(/"serverSync":/)
  expect(reported(child, "serverSync")).toMatchObject({ bob: { archived: true } })
  expect(await child.exited()).toBe(0)
  expect(front.upgrades.length).toBeGreaterThanOrEqual(2)
})
