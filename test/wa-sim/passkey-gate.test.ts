import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import type { BinaryNode } from "@whiskeysockets/baileys"
import { MemoryAuth, simSocketConfig, TestClient } from "./baileys-client"
import { PasskeyRequiredError } from "./passkey-gate"
import { startWaSim, type WaSim } from "./sim"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Runs the simulator with Baileys sockets: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/**
 * The simulator's passkey gate on linking (off by default) against unmodified Baileys
 * 7.0.0-rc14, without wagate: what the server sends instead of `pair-success`, and that Baileys
 * alone never leaves its QR codes (WhiskeySockets/Baileys#2694).
 */

const ME = "+15550001111"

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
}, SLOW_HOOK_TIMEOUT_MS)

/** A simulator without the secret rotation, which Baileys alone cannot pair through (adv-refresh.test.ts). */
async function world(qrTimeoutMs?: number): Promise<{ sim: WaSim; companion: TestClient; requests: BinaryNode[]; requested: Promise<BinaryNode> }> {
  const sim = await startWaSim({ advSecretRotation: false })
  cleanups.push(() => sim.stop())
  const auth = new MemoryAuth()
  const companion = new TestClient(simSocketConfig(sim, auth, qrTimeoutMs === undefined ? {} : { qrTimeout: qrTimeoutMs }), auth)
  cleanups.push(() => companion.end())
  const requests: BinaryNode[] = []
  const requested = new Promise<BinaryNode>((resolve) =>
    companion.sock.ws.on("CB:notification,type:passkey_prologue_request", (node: BinaryNode) => {
      requests.push(node)
      resolve(node)
    }),
  )
  return { sim, companion, requests, requested }
}

/** The WebAuthn request options of the request, parsed. */
function optionsOf(node: BinaryNode): Record<string, unknown> {
  const child = (node.content as BinaryNode[]).find((c) => c.tag === "passkey_request_options")!
  return JSON.parse(Buffer.from(child.content as Uint8Array).toString("utf8"))
}

describe("wa-sim: the server gates linking on the account's passkey", () => {
  test("by QR: the scan is answered with passkey_prologue_request from the server instead of pair-success; Baileys alone keeps showing QR codes", async () => {
    const { sim, companion, requests, requested } = await world(300)
    sim.requirePasskeyToLink(ME)
    const first = await companion.waitForQr()
    await expect(sim.primary(ME).scanQr(first)).rejects.toBeInstanceOf(PasskeyRequiredError)
    await requested
    expect(requests[0]!.attrs).toMatchObject({ from: "@s.whatsapp.net", type: "passkey_prologue_request" })
    expect(optionsOf(requests[0]!)).toMatchObject({ rpId: "whatsapp.com", timeout: 600_000, userVerification: "required", allowCredentials: [] })
    // Nothing linked: Baileys shows the next ref's QR, and the account has no device.
    await companion.waitFor(() => (companion.qrs.length >= 2 ? true : undefined), "the next QR")
    expect(companion.closed).toBe(false)
    expect(sim.primary(ME).account.devices.size).toBe(0)
  })

  test("by code: after companion_finish the server sends passkey_prologue_request instead of pair-success", async () => {
    const { sim, companion, requests, requested } = await world()
    sim.requirePasskeyToLink(ME)
    await companion.waitForQr()
    const code = await companion.sock.requestPairingCode(ME.slice(1))
    await expect(sim.primary(ME).confirmPairingCode(code)).rejects.toBeInstanceOf(PasskeyRequiredError)
    await requested
    expect(requests).toHaveLength(1)
    const finish = sim.clientStanzas.retained.find(({ node }) => node.tag === "iq" && JSON.stringify(node).includes("companion_finish"))
    expect(finish).toBeDefined()
    expect(companion.closed).toBe(false)
    expect(sim.primary(ME).account.devices.size).toBe(0)
  })

  test("switched off (the default), and after it is switched off again, the scan links", async () => {
    const { sim, companion } = await world()
    sim.requirePasskeyToLink(ME)
    sim.requirePasskeyToLink(ME, false)
    const linked = await sim.primary(ME).scanQr(await companion.waitForQr())
    expect(linked.deviceId).toBe(1)
  })
})
