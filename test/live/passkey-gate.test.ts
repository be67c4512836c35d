import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { loadConfig } from "../../src/config"
import { createServices, type Services } from "../../src/deps"
import { createAccount } from "../../src/domain/accounts"
import { addPhone } from "../../src/domain/phones"
import type { PairingState } from "../../src/domain/sessions"
import { systemClock } from "../../src/lib/clock"
import type { Logger } from "../../src/lib/logger"
import { PasskeyRequiredError, startWaSim, type WaSim } from "../wa-sim"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Runs the simulator and real Baileys: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * docs/live-whatsapp.md § "Passkey-gated linking": wagate's services in this process, with real
 * Baileys against the simulator, pairing a phone whose account WhatsApp gates on its passkey.
 * The attempt ends at once as `passkey_required` (logged once at warn, naming the phone), the
 * socket is closed and no further QR is shown, by QR and by code. Baileys' own QR refs would run
 * for minutes (60 s, then 20 s per ref); the bound here is a few seconds.
 */

/** How soon after the phone met the gate the pairing state must say so: far below one QR's 60 s. */
const REPORTED_WITHIN_MS = 5_000

let sim: WaSim
let services: Services
let warnings: { msg: string; fields: Record<string, unknown> }[]
let simLines: string[]

beforeEach(async () => {
  warnings = []
  simLines = []
  sim = await startWaSim({ log: (line) => void simLines.push(line) })
  const quiet = () => {}
  const logger: Logger = { debug: quiet, info: quiet, warn: (msg, fields = {}) => void warnings.push({ msg, fields }), error: quiet }
  services = await createServices(loadConfig({ WAGATE_WA_WS_URL: sim.wsUrl }), { clock: systemClock(), logger, databasePath: ":memory:" })
  await services.start()
}, SLOW_HOOK_TIMEOUT_MS)

afterEach(async () => {
  await services?.stop()
  await sim?.stop()
}, SLOW_HOOK_TIMEOUT_MS)

/** Polls `probe` every 10 ms until it returns something; fails after `timeoutMs` with `what`. */
async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(10)
  }
}

/** A phone of a new account, pairing by `method`, with every pairing state it goes through. */
async function pairing(phoneNumber: string, method: "qr" | "code"): Promise<{ phoneId: string; states: PairingState[] }> {
  const account = await createAccount(services.ctx, "Acme", "ops@acme.test")
  const phone = await addPhone(services.ctx, account.id, phoneNumber)
  const states: PairingState[] = []
  services.sessions.subscribe(phone.id, (state) => void states.push(state))
  await services.sessions.connect(phone.id, method)
  return { phoneId: phone.id, states }
}

/** The QR codes and pairing codes the phone's pairing state showed, in order. */
const shown = (states: PairingState[]) => [...new Set(states.flatMap((s) => [s.qr, s.pairingCode]).filter((v): v is string => v !== null))]
/** Every connection to the simulator is closed (it logs `connN open` and `connN closed`). */
const noConnectionOpen = () => simLines.filter((l) => / open$/.test(l)).length === simLines.filter((l) => / closed$/.test(l)).length

/** What the gate must leave behind, however the phone met it. */
async function expectGated(phoneId: string, phoneNumber: string, states: PairingState[], gatedAt: number): Promise<void> {
  const state = await until(async () => {
    const now = await services.sessions.pairingState(phoneId)
    return now.lastError?.code === "passkey_required" ? now : undefined
  }, "lastError passkey_required")
  expect(performance.now() - gatedAt).toBeLessThan(REPORTED_WITHIN_MS)
  expect(state).toMatchObject({ connectionStatus: "unpaired", qr: null, pairingCode: null })
  expect(state.lastError!.message).toContain("passkey")
  await until(async () => (noConnectionOpen() ? true : undefined), "the socket to close")
  // The closed socket is what rules out a later QR; Baileys runs on real time, so a short real
  // wait checks that nothing reconnects (a retried pairing would open a socket at once).
  const seen = shown(states).length
  await Bun.sleep(1_500)
  expect(shown(states)).toHaveLength(seen)
  expect(noConnectionOpen()).toBe(true)
  const gateWarnings = warnings.filter((w) => w.fields.code === "passkey_required")
  expect(gateWarnings).toEqual([
    {
      msg: `WhatsApp connection of ${phoneNumber} failed: ${state.lastError!.message}`,
      fields: { phoneId, phoneNumber, code: "passkey_required", cause: "WhatsApp sent passkey_prologue_request for whatsapp.com", nextAttempt: "not retrying" },
    },
  ])
}

describe("pairing an account WhatsApp gates on its passkey", () => {
  test("by QR: after the scan, lastError is passkey_required at once, logged once at warn naming the phone; the socket closes and no further QR is shown", async () => {
    const ME = "+15550061111"
    sim.requirePasskeyToLink(ME)
    const { phoneId, states } = await pairing(ME, "qr")
    // The first scan meets the secret rotation (the simulator's default); the next QR meets the gate.
    const scanned = sim.primary(ME).scanShownQr(async () => (await services.sessions.pairingState(phoneId)).qr ?? undefined)
    await expect(scanned).rejects.toBeInstanceOf(PasskeyRequiredError)
    await expectGated(phoneId, ME, states, performance.now())
  })

  test("by code: after the code is confirmed, lastError is passkey_required at once, logged once; no further pairing code is asked for", async () => {
    const ME = "+15550062222"
    sim.requirePasskeyToLink(ME)
    const { phoneId, states } = await pairing(ME, "code")
    const code = await until(async () => (await services.sessions.pairingState(phoneId)).pairingCode ?? undefined, "a pairing code")
    await expect(sim.primary(ME).confirmPairingCode(code)).rejects.toBeInstanceOf(PasskeyRequiredError)
    await expectGated(phoneId, ME, states, performance.now())
  })

  test("an account without the gate pairs as before (the simulator's switch is off by default)", async () => {
    const ME = "+15550063333"
    const { phoneId } = await pairing(ME, "qr")
    await sim.primary(ME).scanShownQr(async () => (await services.sessions.pairingState(phoneId)).qr ?? undefined)
    await until(async () => ((await services.sessions.pairingState(phoneId)).connectionStatus === "connected" ? true : undefined), "connected")
    expect(warnings.filter((w) => w.fields.code === "passkey_required")).toEqual([])
  })
})
