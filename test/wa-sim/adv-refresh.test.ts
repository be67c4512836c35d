import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { MemoryAuth, simSocketConfig, TestClient } from "./baileys-client"
import { RetiredQrSecretError } from "./adv-refresh"
import { startWaSim, type WaSim } from "./sim"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Runs the simulator with Baileys sockets: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/**
 * The simulator's secret rotation (on by default) against unmodified Baileys 7.0.0-rc14, without
 * wagate: what the server does, and what Baileys alone makes of it.
 */

const ME = "+15550001111"
/** `…#ref,noise,identity,adv,platform` → its fields. */
const fieldsOf = (qr: string) => {
  const [ref, noise, identity, adv] = qr.split("#")[1]!.split(",")
  return { ref, noise, identity, adv }
}

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
}, SLOW_HOOK_TIMEOUT_MS)

async function started(): Promise<WaSim> {
  const sim = await startWaSim({ log: process.env.WA_SIM_TRACE ? (line) => console.log(`[wa-sim] ${line}`) : undefined })
  cleanups.push(() => sim.stop())
  return sim
}

function client(sim: WaSim, auth: MemoryAuth, qrTimeoutMs?: number): TestClient {
  const made = new TestClient(simSocketConfig(sim, auth, qrTimeoutMs === undefined ? {} : { qrTimeout: qrTimeoutMs }), auth)
  cleanups.push(() => made.end())
  return made
}

describe("wa-sim: the server retires a companion's pairing secret mid-pairing", () => {
  test("by QR: the scan is refused and the companion is sent companion_reg_refresh; Baileys alone keeps showing the retired secret, so its next QR is refused too (WhiskeySockets/Baileys#2737)", async () => {
    const sim = await started()
    const auth = new MemoryAuth()
    // A short QR lifetime so Baileys shows its next ref without a minute's wait.
    const companion = client(sim, auth, 300)
    const refreshes: { tag: string }[][] = []
    companion.sock.ws.on("CB:notification,type:companion_reg_refresh", (node: { content: { tag: string }[] }) => refreshes.push(node.content))
    const first = await companion.waitForQr()
    await expect(sim.primary(ME).scanQr(first)).rejects.toBeInstanceOf(RetiredQrSecretError)
    await companion.waitFor(() => (companion.qrs.length >= 2 ? true : undefined), "Baileys' next QR")
    expect(refreshes).toEqual([[{ tag: "companion_reg_refresh", attrs: {} }]] as never)
    const next = companion.qrs[1]!
    expect(fieldsOf(next).ref).not.toBe(fieldsOf(first).ref)
    expect(fieldsOf(next).adv).toBe(fieldsOf(first).adv)
    await expect(sim.primary(ME).scanQr(next)).rejects.toThrow("carries a pairing secret the server has retired")
    // Baileys cannot ack a notification before it is paired: its ack reads creds.me.id (WhiskeySockets/Baileys#2738).
    expect(sim.clientStanzas.some(({ node }) => node.tag === "ack" && node.attrs.class === "notification")).toBe(false)
    expect(sim.primary(ME).account.devices.size).toBe(0)
  })

  test("by QR, switched off: the first scan links", async () => {
    const sim = await startWaSim({ advSecretRotation: false })
    cleanups.push(() => sim.stop())
    const companion = client(sim, new MemoryAuth())
    const linked = await sim.primary(ME).scanQr(await companion.waitForQr())
    expect(linked.deviceId).toBe(1)
  })

  test("by code: the rotation after companion_finish is acked by Baileys, which keeps the secret both sides derived, and the link completes", async () => {
    const sim = await started()
    const auth = new MemoryAuth()
    const companion = client(sim, auth)
    await companion.waitForQr()
    const code = await companion.sock.requestPairingCode(ME.slice(1))
    const linked = await sim.primary(ME).confirmPairingCode(code)
    expect(await companion.waitForClose()).toBe(515)
    expect(auth.state.creds.me?.id).toBe(linked.jid)
    const acks = sim.clientStanzas.retained.filter(({ node }) => node.tag === "ack" && node.attrs.class === "notification" && node.attrs.type === "companion_reg_refresh")
    expect(acks).toHaveLength(1)
  })
})
