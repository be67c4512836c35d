import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { runCli } from "../../src/cli/index"
import { NEVER } from "../cli/run-cli"
import { waitUntil } from "../helpers/webhook-receiver"
import { startWaSim, type WaSim } from "../wa-sim"
import { poll, WagateProcess } from "./live-world"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * `wagate phones pair` beside a running wagate, against the simulator, which retires the pairing
 * secret mid-pairing as WhatsApp does since July 2026 (docs/live-whatsapp.md § "Pairing secret
 * rotation"): the terminal prints the QR again with the live secret, and the pairing completes,
 * by QR and by code.
 */

const ME = "+15550051111"
const OTHER = "+15550052222"

let sim: WaSim
let wagate: WagateProcess

beforeAll(async () => {
  sim = await startWaSim()
  wagate = await WagateProcess.start({ WAGATE_WA_WS_URL: sim.wsUrl, WAGATE_LOG_LEVEL: process.env.WAGATE_LOG_LEVEL ?? "error" })
  for (const phoneNumber of [ME, OTHER]) await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber })
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(async () => {
  await wagate?.dispose()
  await sim?.stop()
}, SLOW_HOOK_TIMEOUT_MS)

/** `wagate phones pair …` in-process against the running server of the data directory. */
function pair(argv: string[]) {
  const out = { stdout: "", stderr: "" }
  const done = runCli(
    ["phones", "pair", ...argv],
    { env: { WAGATE_DATA_DIR: wagate.dataDir }, stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t), isTty: false },
    NEVER,
  )
  return { out, done }
}

async function pairingOf(phoneNumber: string): Promise<{ qr: string | null; pairingCode: string | null }> {
  const phones = await wagate.adminOk("GET", `/accounts/${wagate.accountId}/phones`)
  const phone = phones.find((p: { phoneNumber: string }) => p.phoneNumber === phoneNumber)
  return wagate.adminOk("GET", `/phones/${phone.id}/pairing`)
}

const SCAN_PROMPT = `Scan this with WhatsApp on ${ME}`

describe("wagate phones pair through a secret rotation", () => {
  test("by QR: the first QR's secret is retired, the terminal prints the QR again with a new secret, and scanning that one pairs", async () => {
    const { out, done } = pair([ME])
    await waitUntil(() => out.stdout.includes(SCAN_PROMPT), 20_000, "the first QR on the terminal")
    const linked = await sim.primary(ME).scanShownQr(async () => (await pairingOf(ME)).qr ?? undefined)
    expect(linked.refusedQrs).toHaveLength(1)
    expect(await done).toBe(0)
    // Two QR codes were printed: the one whose secret was retired, and the one that linked.
    expect(out.stdout.split(SCAN_PROMPT)).toHaveLength(3)
    expect(out.stdout).toEndWith(`Paired: ${ME} is connected and the server keeps it online.\n`)
    expect(out.stderr).toBe("")
  })

  test("by code: the rotation after the code exchange leaves the derived secret alone, and the pairing completes", async () => {
    const { out, done } = pair([OTHER, "--code"])
    const code = await poll(async () => (await pairingOf(OTHER)).pairingCode ?? undefined, "a pairing code", 20_000)
    await waitUntil(() => out.stdout.includes(code), 10_000, "the code on the terminal")
    await sim.primary(OTHER).confirmPairingCode(code)
    expect(await done).toBe(0)
    expect(out.stdout).toEndWith(`Paired: ${OTHER} is connected and the server keeps it online.\n`)
  })
})
