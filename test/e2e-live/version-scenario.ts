import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { WaSim } from "../wa-sim"
import { SLOW_HOOK_TIMEOUT_MS } from "../helpers/timeouts"
import { poll, WagateProcess } from "./live-world"
import { pairedPhone, startTlsWorld, type TlsWorld } from "./tls-world"

/*
 * Retired versions and client expiration (docs/live-whatsapp.md § "Retired versions" and
 * § "Client expiration"), over the TLS front as in production: wagate reads the current WhatsApp
 * Web version from the simulator's version page (WAGATE_WA_VERSION_URL), the simulator refuses
 * retired versions with 405 at the handshake and announces `<ib><client_expiration>` after a
 * login. version-source.test.ts and version-binary.test.ts run it against `bun src/main.ts serve`
 * and the compiled executable.
 *
 * Every test starts where wagate's cached version is the one the page names (each lookup wagate
 * makes is answered from the page, and each test that changes the page makes wagate look again),
 * so the tests do not depend on their order.
 */

const ME = "+15550081111"
const OTHER = "+15550082222"
const DAY_MS = 86_400_000

export function describeVersions(label: string, options: { prepare: () => Promise<string[] | undefined>; prepareTimeoutMs: number }): void {
  let world: TlsWorld
  let sim: WaSim
  let wagate: WagateProcess
  let phoneId: string
  let otherId: string
  let nextBuild = 1_031_000_001

  beforeAll(async () => {
    const command = await options.prepare()
    world = await startTlsWorld({
      command,
      keyName: "versions",
      scopes: ["messages:send"],
      env: (sim) => {
        sim.versions.currentBuild = nextBuild++
        return { WAGATE_WA_VERSION_URL: sim.versionUrl }
      },
    })
    ;({ sim, wagate } = world)
    phoneId = await pairedPhone(world, ME)
    otherId = await pairedPhone(world, OTHER)
  }, options.prepareTimeoutMs + SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await world?.stop()
  }, SLOW_HOOK_TIMEOUT_MS)

  const pairing = async (id: string) => wagate.adminOk("GET", `/phones/${id}/pairing`)

  /** Closes the phone's socket and opens a new one, as an operator's disconnect and connect do. */
  async function reconnect(id: string): Promise<void> {
    await wagate.adminOk("POST", `/phones/${id}/disconnect`)
    await wagate.adminOk("POST", `/phones/${id}/connect`, {})
  }

  /** The page names a new build and the one wagate announces now is retired. */
  function shipNewBuild(): string {
    sim.versions.retire(sim.versions.current!)
    sim.versions.currentBuild = nextBuild++
    return sim.versions.current!
  }

  describe(`retired versions and client expiration over TLS, ${label}`, () => {
    test("a retired announced version is refused with 405; wagate looks the version up again, reconnects with the current one and the phone connects", async () => {
      const asked = sim.versions.pageRequests
      const current = shipNewBuild()
      await reconnect(phoneId)
      const state = await poll(async () => {
        const s = await pairing(phoneId)
        return s.connectionStatus === "connected" && s.waVersion === current ? s : undefined
      }, "the phone connected with the current version", 20_000)
      expect(state.lastError).toBeNull()
      expect(sim.versions.pageRequests).toBe(asked + 1)
    })

    test("when the lookup still names the retired version, the phone ends with outdated_version naming it, after one more lookup", async () => {
      const asked = sim.versions.pageRequests
      const retired = sim.versions.current!
      sim.versions.retire(retired)
      await reconnect(otherId)
      const state = await poll(async () => {
        const s = await pairing(otherId)
        return s.lastError?.code === "outdated_version" ? s : undefined
      }, "outdated_version", 20_000)
      expect(state.connectionStatus).toBe("disconnected")
      expect(state.lastError.message).toContain(`WhatsApp refused client version ${retired}`)
      expect(state.waVersion).toBe(retired)
      expect(sim.versions.pageRequests).toBe(asked + 1)
    })

    test("<ib><client_expiration> after a login shows in the phone's pairing state and in wagate doctor", async () => {
      const expiresAtMs = Math.floor((Date.now() + 40 * DAY_MS) / DAY_MS) * DAY_MS
      sim.versions.expiresAtMs = expiresAtMs
      const current = shipNewBuild()
      await reconnect(phoneId)
      const state = await poll(async () => {
        const s = await pairing(phoneId)
        return s.connectionStatus === "connected" && s.clientExpiresAt !== null ? s : undefined
      }, "the client expiry on the pairing state", 20_000)
      expect(state).toMatchObject({ waVersion: current, clientExpiresAt: new Date(expiresAtMs).toISOString() })

      const doctor = await wagate.cli(["doctor", "--json", ME])
      const results = JSON.parse(doctor.out) as { name: string; status: string; detail: string; action: string | null }[]
      expect(results.find((r) => r.name === "expiry")).toEqual({
        name: "expiry",
        status: "ok",
        detail: `${ME}: WhatsApp says this client version (WhatsApp Web ${current}) expires on ${new Date(expiresAtMs).toISOString().slice(0, 10)}; upgrade wagate or set WAGATE_WA_VERSION before then`,
        action: null,
      })
      expect(results.find((r) => r.name === "phone")!.detail).toContain(`announcing WhatsApp Web ${current}`)
      sim.versions.expiresAtMs = null
    })
  })
}
