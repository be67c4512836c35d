import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { PasskeyRequiredError, type WaSim } from "../wa-sim"
import { childEnv, Proc } from "../helpers/wagate-process"
import { SLOW_HOOK_TIMEOUT_MS } from "../helpers/timeouts"
import { poll, WagateProcess } from "./live-world"
import { startTlsWorld, type TlsWorld } from "./tls-world"

/*
 * Passkey-gated linking (docs/live-whatsapp.md § "Passkey-gated linking"): WhatsApp answers the
 * scan or the typed code with a passkey request wagate cannot answer. The pairing ends at once as
 * `passkey_required`: `wagate phones pair` exits 1 with the reason, the pairing state, the
 * dashboard and `wagate phones list --json` show it, `wagate doctor` says what to do, the warn log
 * has it once, and no further QR comes. Over the TLS front, as in production; passkey-source.test.ts
 * and passkey-binary.test.ts run it against `bun src/main.ts` and the compiled executable (server
 * and CLI alike).
 */

const BY_QR = "+15550071111"
const BY_CODE = "+15550072222"
/** How soon after the phone met the gate wagate must say so: Baileys' first QR alone lives 60 s. */
const REPORTED_WITHIN_MS = 5_000

export function describePasskeyGate(label: string, options: { prepare: () => Promise<string[] | undefined>; prepareTimeoutMs: number }): void {
  let world: TlsWorld
  let sim: WaSim
  let wagate: WagateProcess
  let command: string[] | undefined

  beforeAll(async () => {
    command = await options.prepare()
    // The warn log is read: the level is set whatever WAGATE_LOG_LEVEL the run has.
    world = await startTlsWorld({ command, keyName: "passkey", scopes: ["messages:read"], env: { WAGATE_LOG_LEVEL: "warn" } })
    ;({ sim, wagate } = world)
    for (const phoneNumber of [BY_QR, BY_CODE]) {
      await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber })
      sim.requirePasskeyToLink(phoneNumber)
    }
  }, options.prepareTimeoutMs + SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await world?.stop()
  }, SLOW_HOOK_TIMEOUT_MS)

  /** `wagate <args> --data <dir>`, the same wagate as the server (source or executable). */
  function cli(args: string[], env: Record<string, string> = {}): Proc {
    const all = [...args, "--data", wagate.dataDir]
    return command ? new Proc(all, childEnv(env), { command }) : new Proc(all, env)
  }

  async function phoneIdOf(phoneNumber: string): Promise<string> {
    const phones = await wagate.adminOk("GET", `/accounts/${wagate.accountId}/phones`)
    return phones.find((p: { phoneNumber: string }) => p.phoneNumber === phoneNumber).id
  }

  const pairingOf = async (phoneId: string) => wagate.adminOk("GET", `/phones/${phoneId}/pairing`)

  /** The server's warn lines (JSON on stderr) about this phone's passkey gate. */
  const gateWarnings = (phoneNumber: string) =>
    wagate.proc.err
      .split("\n")
      .filter((line) => line.includes('"code":"passkey_required"') && line.includes(`"phoneNumber":"${phoneNumber}"`))
      .map((line) => JSON.parse(line) as { level: string; msg: string; nextAttempt: string })

  /** What the gate leaves behind on the phone: the state, nothing more shown after a wait, one warn line. */
  async function expectGated(phoneNumber: string, phoneId: string): Promise<void> {
    const state = await pairingOf(phoneId)
    expect(state).toMatchObject({ connectionStatus: "unpaired", qr: null, pairingCode: null, lastError: { code: "passkey_required" } })
    expect(state.lastError.message).toContain("passkey")
    // A second later nothing new is shown: the socket is closed, not waiting for its refs to run out.
    await Bun.sleep(1_000)
    expect(await pairingOf(phoneId)).toMatchObject({ connectionStatus: "unpaired", qr: null, pairingCode: null, lastError: { code: "passkey_required" } })
    const warnings = await poll(async () => (gateWarnings(phoneNumber).length > 0 ? gateWarnings(phoneNumber) : undefined), "the warn line")
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ level: "warn", msg: `WhatsApp connection of ${phoneNumber} failed: ${state.lastError.message}`, nextAttempt: "not retrying" })
  }

  describe(`passkey-gated linking over TLS, ${label}`, () => {
    test("by QR with `wagate phones pair`: after the scan the command exits 1 at once with passkey_required, printing no further QR; the dashboard shows it", async () => {
      const phoneId = await phoneIdOf(BY_QR)
      const pair = cli(["phones", "pair", BY_QR])
      const prompt = `Scan this with WhatsApp on ${BY_QR}`
      await pair.waitFor(new RegExp(prompt.replace("+", "\\+")), 30_000)
      // The first scan meets the secret rotation; the QR shown again meets the gate.
      await expect(sim.primary(BY_QR).scanShownQr(async () => (await pairingOf(phoneId)).qr ?? undefined)).rejects.toBeInstanceOf(PasskeyRequiredError)
      const gatedAt = performance.now()
      expect(await pair.exited(REPORTED_WITHIN_MS)).toBe(1)
      expect(performance.now() - gatedAt).toBeLessThan(REPORTED_WITHIN_MS)
      expect(pair.err).toMatch(/^error: pairing stopped \(passkey_required\): WhatsApp asked for a passkey check on the phone/m)
      // The QR whose secret was retired and the one that met the gate: nothing after.
      expect(pair.out.split(prompt)).toHaveLength(3)
      await expectGated(BY_QR, phoneId)

      const signIn = await fetch(`${wagate.base}/dashboard/sign-in`, {
        method: "POST",
        redirect: "manual",
        headers: { origin: wagate.base, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: wagate.adminToken, next: "" }).toString(),
      })
      const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!
      const page = await (await fetch(`${wagate.base}/dashboard/phones/${phoneId}`, { headers: { cookie } })).text()
      expect(page).toContain("<dt>Last failure</dt><dd><strong>passkey_required</strong>: WhatsApp asked for a passkey check")
    })

    test("by code through the admin API: after the code is confirmed, lastError is passkey_required at once and no further code comes; `wagate doctor` says to try later", async () => {
      const phoneId = await phoneIdOf(BY_CODE)
      await wagate.adminOk("POST", `/phones/${phoneId}/connect`, { method: "code" })
      const code = await poll(async () => (await pairingOf(phoneId)).pairingCode ?? undefined, "a pairing code", 20_000)
      await expect(sim.primary(BY_CODE).confirmPairingCode(code)).rejects.toBeInstanceOf(PasskeyRequiredError)
      const gatedAt = performance.now()
      await poll(async () => ((await pairingOf(phoneId)).lastError?.code === "passkey_required" ? true : undefined), "lastError passkey_required", REPORTED_WITHIN_MS)
      expect(performance.now() - gatedAt).toBeLessThan(REPORTED_WITHIN_MS)
      await expectGated(BY_CODE, phoneId)

      const doctor = cli(["doctor", BY_CODE, "--json"], { WAGATE_WA_WS_URL: world.front.wsUrl })
      expect(await doctor.exited(30_000)).toBe(1)
      const phone = (JSON.parse(doctor.out) as { name: string; detail: string; action: string }[]).find((c) => c.name === "phone")!
      expect(phone.detail).toContain("is unpaired; last error passkey_required at ")
      expect(phone.action).toStartWith(`WhatsApp asks for a passkey to link a device to ${BY_CODE}, which wagate cannot give: cancel the prompt on the phone and try`)

      const list = cli(["phones", "list", "--json"])
      expect(await list.exited(30_000)).toBe(0)
      const listed = (JSON.parse(list.out) as { phoneNumber: string; lastError: { code: string } | null }[]).find((p) => p.phoneNumber === BY_CODE)!
      expect(listed.lastError?.code).toBe("passkey_required")
    })
  })
}
