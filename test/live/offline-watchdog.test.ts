import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import type { Logger } from "../../src/lib/logger"
import { findPhone } from "../../src/store/sqlite/phones"
import { createHarness, type Harness } from "../helpers/harness"
import { iso } from "./live-helpers"

/*
 * docs/live-whatsapp.md § "Receiving stalls": when the adapter's watchdog released the inbound
 * messages Baileys held because WhatsApp's end-of-offline-queue marker did not come, the phone
 * logs it once at warn by its number and keeps the time, shown in its pairing state.
 */

let h: Harness
let warnings: { msg: string; fields: Record<string, unknown> }[]

beforeEach(async () => {
  warnings = []
  const quiet = () => {}
  const logger: Logger = { debug: quiet, info: quiet, warn: (msg, fields = {}) => void warnings.push({ msg, fields }), error: quiet }
  h = await createHarness({ logger })
})
afterEach(() => h.close())

describe("offline-marker watchdog, seen by the operator", () => {
  test("a release is logged once at warn naming the phone, kept on the phone and shown in its pairing state", async () => {
    const { phone } = await h.seedTenant({ env: "live" })
    await h.connectPhone(phone)
    expect((await h.services.sessions.pairingState(phone.id)).offlineWatchdogAtMs).toBeNull()
    const atMs = h.clock.nowMs()
    h.gateway.current(phone.id).missOfflineMarker(atMs)
    await h.settle()

    const released = warnings.filter((w) => w.msg.includes("offline queue"))
    expect(released).toHaveLength(1)
    expect(released[0]!.msg).toStartWith(`${phone.phoneNumber}: WhatsApp did not send the end of its offline queue within 10 s of login`)
    expect(released[0]!.fields).toMatchObject({ phoneId: phone.id })
    expect(findPhone(h.services.sqlite!, phone.id)?.offlineWatchdogAtMs).toBe(atMs)
    const admin = await h.adminToken()
    const pairing = await h.request("GET", `/admin/v1/phones/${phone.id}/pairing`, { key: admin })
    expect(pairing.body.data.offlineWatchdogAt).toBe(iso(atMs))
  })

  test("a release reported by a session that is no longer the phone's changes nothing", async () => {
    const { phone } = await h.seedTenant({ env: "live" })
    await h.connectPhone(phone)
    const old = h.gateway.current(phone.id)
    old.drop("connection_lost")
    await h.settle()
    old.missOfflineMarker(h.clock.nowMs())
    await h.settle()
    expect(findPhone(h.services.sqlite!, phone.id)?.offlineWatchdogAtMs).toBeNull()
    expect(warnings.filter((w) => w.msg.includes("offline queue"))).toEqual([])
  })
})
