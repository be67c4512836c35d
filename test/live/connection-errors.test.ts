import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import type { LastError } from "../../src/domain/connection-errors"
import { PAIRING_MAX_CODES, PAIRING_MAX_FAILED_CONNECTS, PAIRING_MAX_QR_CODES } from "../../src/domain/pairing-attempts"
import type { PairingState } from "../../src/domain/sessions"
import { Envelope } from "../../src/http/models/common"
import { AdminPhone } from "../../src/http/models/admin"
import { PhoneNumber, PhoneStatus } from "../../src/http/models/phones"
import type { Logger } from "../../src/lib/logger"
import { findPhone } from "../../src/store/sqlite/phones"
import { createHarness, expectSchema, type Harness } from "../helpers/harness"
import { eventsOf, iso, recordEvents } from "./live-helpers"

/*
 * docs/live-whatsapp.md: every failed connect or pairing attempt is recorded on the phone as
 * `lastError` (null once connected), logged once at warn with its next attempt, and shown in the
 * admin phone record, the pairing state and its stream. A pairing that fails keeps `pairing`
 * between attempts and gives up by bounded rules; a paired phone keeps reconnecting with backoff.
 * random is fixed at 0.5, so reconnect delays are 750, 1500, 3000, 6000 ms, ….
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

async function tick(ms: number) {
  await h.advance(ms)
  await h.settle()
}

/** Every pairing state the phone goes through, in order. */
function statesOf(phoneId: string): PairingState[] {
  const states: PairingState[] = []
  h.services.sessions.subscribe(phoneId, (state) => void states.push(state))
  return states
}

const sessionsOf = (phoneId: string) => h.gateway.sessions.get(phoneId)?.length ?? 0
const state = (phoneId: string) => h.services.sessions.pairingState(phoneId)
const refused = { code: "connection_refused", host: "web.whatsapp.com", cause: "connect ECONNREFUSED 157.240.0.53:443" } as const

async function pairingPhone(method: "qr" | "code" = "qr") {
  const { account, phone } = await h.seedTenant({ env: "live" })
  await recordEvents(h, account.id)
  await h.services.sessions.connect(phone.id, method)
  await h.settle()
  return phone
}

describe("a pairing whose connects fail", () => {
  test("stays pairing with lastError between attempts (never disconnected), retries with backoff, and logs each failure once with its next attempt", async () => {
    const phone = await pairingPhone()
    const states = statesOf(phone.id)
    const failedAt = h.clock.nowMs()
    h.gateway.current(phone.id).drop("connection_lost", refused)
    await h.settle()

    const lastError: LastError = {
      code: "connection_refused",
      message: "web.whatsapp.com refused the connection: check the firewall or proxy between this host and WhatsApp, and WAGATE_WA_WS_URL.",
      atMs: failedAt,
    }
    expect((await state(phone.id))).toMatchObject({ connectionStatus: "pairing", qr: null, lastError })
    expect(warnings).toEqual([
      {
        msg: `WhatsApp connection of ${phone.phoneNumber} failed: ${lastError.message}`,
        fields: { phoneId: phone.id, phoneNumber: phone.phoneNumber, code: "connection_refused", cause: refused.cause, nextAttempt: iso(failedAt + 750) },
      },
    ])

    await tick(749)
    expect(sessionsOf(phone.id)).toBe(1)
    await tick(1)
    expect(sessionsOf(phone.id)).toBe(2)
    h.gateway.current(phone.id).drop("connection_lost", { code: "dns_failed", host: "web.whatsapp.com" })
    await h.settle()
    expect((await state(phone.id)).lastError).toMatchObject({ code: "dns_failed", message: "Could not resolve web.whatsapp.com: check DNS on this host." })
    expect(warnings.map((w) => w.fields.nextAttempt)).toEqual([iso(failedAt + 750), iso(failedAt + 750 + 1_500)])

    expect(new Set(states.map((s) => s.connectionStatus))).toEqual(new Set(["pairing"]))
    // Nothing was connected, so nothing was disconnected: no webhook event.
    expect(eventsOf(h)).toEqual([])
  })

  test(`gives up after ${PAIRING_MAX_FAILED_CONNECTS} failed connects in a row: unpaired, the last failure kept, not retrying; asking again starts over`, async () => {
    const phone = await pairingPhone()
    let delayMs = 750
    for (let attempt = 1; attempt < PAIRING_MAX_FAILED_CONNECTS; attempt++) {
      h.gateway.current(phone.id).drop("connection_lost", refused)
      await h.settle()
      expect((await state(phone.id)).connectionStatus).toBe("pairing")
      await tick(delayMs)
      delayMs *= 2
    }
    expect(sessionsOf(phone.id)).toBe(PAIRING_MAX_FAILED_CONNECTS)
    h.gateway.current(phone.id).drop("connection_lost", { code: "handshake_timeout", host: "web.whatsapp.com" })
    await h.settle()

    expect((await state(phone.id))).toMatchObject({ connectionStatus: "unpaired", lastError: { code: "handshake_timeout" } })
    expect(warnings).toHaveLength(PAIRING_MAX_FAILED_CONNECTS)
    expect(warnings.at(-1)!.fields).toMatchObject({ code: "handshake_timeout", nextAttempt: "not retrying" })
    await tick(10 * 60_000)
    expect(sessionsOf(phone.id)).toBe(PAIRING_MAX_FAILED_CONNECTS)

    await h.services.sessions.connect(phone.id, "qr")
    await h.settle()
    expect(sessionsOf(phone.id)).toBe(PAIRING_MAX_FAILED_CONNECTS + 1)
    expect((await state(phone.id))).toMatchObject({ connectionStatus: "pairing", lastError: null })
  })

  test("a QR shown in between means the connection works: failed connects count from zero again", async () => {
    const phone = await pairingPhone()
    const failTimes = async (n: number) => {
      for (let i = 0; i < n; i++) {
        h.gateway.current(phone.id).drop("connection_lost", refused)
        await h.settle()
        await tick(60_000)
      }
    }
    await failTimes(PAIRING_MAX_FAILED_CONNECTS - 1)
    h.gateway.current(phone.id).showQr("2@works")
    await h.settle()
    await failTimes(PAIRING_MAX_FAILED_CONNECTS - 1)
    expect((await state(phone.id)).connectionStatus).toBe("pairing")
    expect(sessionsOf(phone.id)).toBe(2 * (PAIRING_MAX_FAILED_CONNECTS - 1) + 1)
  })
})

describe("a pairing nobody completes", () => {
  test(`ends as pairing_expired when QR code ${PAIRING_MAX_QR_CODES + 1} comes unscanned: the socket is closed and nothing retries`, async () => {
    const phone = await pairingPhone()
    const session = h.gateway.current(phone.id)
    for (let i = 1; i <= PAIRING_MAX_QR_CODES; i++) {
      session.showQr(`2@qr-${i}`)
      await h.settle()
      expect((await state(phone.id))).toMatchObject({ connectionStatus: "pairing", qr: `2@qr-${i}` })
    }
    session.showQr("2@one-too-many")
    await h.settle()
    expect(session.closed).toBe(true)
    expect((await state(phone.id))).toMatchObject({ connectionStatus: "unpaired", qr: null, lastError: { code: "pairing_expired" } })
    expect((await state(phone.id)).lastError!.message).toBe(
      "The QR code or pairing code expired without being used: start the pairing again and complete it on the phone within a minute.",
    )
    expect(warnings.at(-1)!.fields).toMatchObject({ code: "pairing_expired", cause: `${PAIRING_MAX_QR_CODES} QR codes went unscanned`, nextAttempt: "not retrying" })
    await tick(10 * 60_000)
    expect(sessionsOf(phone.id)).toBe(1)
  })

  test(`by code: pairing codes count across sockets, and pairing code ${PAIRING_MAX_CODES + 1} ends it as pairing_expired`, async () => {
    const phone = await pairingPhone("code")
    for (let i = 1; i <= PAIRING_MAX_CODES; i++) {
      h.gateway.current(phone.id).showPairingCode(`CODE000${i}`)
      await h.settle()
      expect((await state(phone.id)).pairingCode).toBe(`CODE000${i}`)
      // The socket drops; the next one asks for a new code.
      h.gateway.current(phone.id).drop("connection_lost")
      await h.settle()
      expect((await state(phone.id))).toMatchObject({ connectionStatus: "pairing", pairingCode: null })
      await tick(60_000)
    }
    h.gateway.current(phone.id).showPairingCode("CODE9999")
    await h.settle()
    expect((await state(phone.id))).toMatchObject({ connectionStatus: "unpaired", pairingCode: null, lastError: { code: "pairing_expired" } })
    expect(h.gateway.current(phone.id).closed).toBe(true)
  })

  test("WhatsApp's own expiry (the QR refs ran out) is pairing_expired, not retried", async () => {
    const phone = await pairingPhone()
    h.gateway.current(phone.id).showQr()
    await h.settle()
    h.gateway.current(phone.id).drop("pairing_expired")
    await h.settle()
    expect((await state(phone.id))).toMatchObject({ connectionStatus: "unpaired", lastError: { code: "pairing_expired" } })
    await tick(10 * 60_000)
    expect(sessionsOf(phone.id)).toBe(1)
  })

  test("an outdated client version ends the pairing: unpaired, and the message names the version and WAGATE_WA_VERSION", async () => {
    const phone = await pairingPhone()
    h.gateway.current(phone.id).announce("2.2400.7")
    h.gateway.current(phone.id).drop("outdated_version", { waVersion: "2.2400.7" })
    await h.settle()
    expect((await state(phone.id))).toMatchObject({
      connectionStatus: "unpaired",
      waVersion: "2.2400.7",
      lastError: { code: "outdated_version", message: "WhatsApp refused client version 2.2400.7: set WAGATE_WA_VERSION=auto or a current version." },
    })
    expect(warnings.at(-1)!.fields.nextAttempt).toBe("not retrying")
  })

  test("a scan with another WhatsApp account is account_mismatch, naming the account", async () => {
    const phone = await pairingPhone()
    h.gateway.current(phone.id).open("+19998887777")
    await h.settle()
    expect((await state(phone.id))).toMatchObject({ connectionStatus: "logged_out", lastError: { code: "account_mismatch" } })
    expect((await state(phone.id)).lastError!.message).toContain("+19998887777")
  })
})

describe("a paired phone", () => {
  test("a lost connection: disconnected with lastError, jittered backoff as before, and lastError null once connected again", async () => {
    const { account, phone } = await h.seedTenant({ env: "live" })
    await recordEvents(h, account.id)
    await h.connectPhone(phone)
    const failedAt = h.clock.nowMs()
    h.gateway.current(phone.id).drop("connection_lost", { code: "upgrade_refused", httpStatus: 503, host: "web.whatsapp.com" })
    await h.settle()
    expect((await state(phone.id))).toMatchObject({
      connectionStatus: "disconnected",
      lastError: {
        code: "upgrade_refused",
        message: "web.whatsapp.com answered the WebSocket upgrade with HTTP 503: WhatsApp or a proxy in between is unavailable, and wagate retries.",
        atMs: failedAt,
      },
    })
    expect(warnings.map((w) => w.fields.nextAttempt)).toEqual([iso(failedAt + 750)])
    expect(eventsOf(h, "phone.disconnected").map((e) => e.data)).toEqual([expect.objectContaining({ reason: "connection_lost", willReconnect: true })])

    await tick(750)
    expect((await state(phone.id)).connectionStatus).toBe("connecting")
    h.gateway.current(phone.id).open(phone.phoneNumber)
    await h.settle()
    expect((await state(phone.id))).toMatchObject({ connectionStatus: "connected", lastError: null })
    expect(findPhone(h.services.sqlite!, phone.id)).toMatchObject({ lastErrorCode: null, lastErrorMessage: null, lastErrorAtMs: null })
  })

  test("logged out from the phone: logged_out with lastError, not retrying", async () => {
    const { phone } = await h.seedTenant({ env: "live" })
    await h.connectPhone(phone)
    h.gateway.current(phone.id).drop("logged_out")
    await h.settle()
    expect((await state(phone.id))).toMatchObject({ connectionStatus: "logged_out", lastError: { code: "logged_out" } })
    expect(warnings.at(-1)!.fields).toMatchObject({ code: "logged_out", nextAttempt: "not retrying" })
  })

  test("the version a connect announced is in the pairing state", async () => {
    const { phone } = await h.seedTenant({ env: "live" })
    await h.services.sessions.connect(phone.id, "qr")
    h.gateway.current(phone.id).announce("2.3000.1023456789")
    expect((await state(phone.id)).waVersion).toBe("2.3000.1023456789")
  })
})

describe("where the operator sees it", () => {
  test("the admin phone record carries lastError (stored on the phone); /v1 phone and status keep exactly the spec's fields", async () => {
    const { key, phone } = await h.seedTenant({ env: "live" })
    const admin = await h.adminToken()
    await h.services.sessions.connect(phone.id, "qr")
    const failedAt = h.clock.nowMs()
    h.gateway.current(phone.id).drop("connection_lost", refused)
    await h.settle()

    const list = await h.request("GET", `/admin/v1/accounts/${phone.accountId}/phones`, { key: admin })
    expectSchema(Envelope(AdminPhone), { ...list.body, data: list.body.data[0] })
    expect(list.body.data[0].lastError).toEqual({ code: "connection_refused", message: expect.stringContaining("refused the connection"), at: iso(failedAt) })
    expect(findPhone(h.services.sqlite!, phone.id)).toMatchObject({ lastErrorCode: "connection_refused", lastErrorAtMs: failedAt })

    const pairing = await h.request("GET", `/admin/v1/phones/${phone.id}/pairing`, { key: admin })
    expect(Object.keys(pairing.body.data).sort()).toEqual(["clientExpiresAt", "connectionStatus", "lastError", "offlineWatchdogAt", "pairingCode", "qr", "updatedAt", "waVersion"])
    expect(pairing.body.data.lastError.code).toBe("connection_refused")

    const v1Phone = await h.request("GET", `/v1/phone-numbers/${phone.id}`, { key })
    const v1Status = await h.request("GET", `/v1/phone-numbers/${phone.id}/status`, { key })
    expect(Object.keys(v1Phone.body.data).sort()).toEqual(Object.keys(PhoneNumber.properties).sort())
    expect(Object.keys(v1Status.body.data).sort()).toEqual(Object.keys(PhoneStatus.properties).sort())
    expect(v1Phone.body.data.lastError).toBeUndefined()
    expect(v1Status.body.data.lastError).toBeUndefined()
  })

  test("the pairing event stream sends a frame with each failure's lastError", async () => {
    const phone = await pairingPhone()
    const admin = await h.adminToken()
    const res = await h.app.handle(new Request(`http://localhost/admin/v1/phones/${phone.id}/pairing/events`, { headers: { authorization: `Bearer ${admin}` } }))
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    expect(decoder.decode((await reader.read()).value)).toContain('"lastError":null')
    h.gateway.current(phone.id).drop("connection_lost", refused)
    const frame = decoder.decode((await reader.read()).value)
    expect(frame).toStartWith("event: pairing\n")
    expect(JSON.parse(frame.split("data: ")[1]!)).toMatchObject({ connectionStatus: "pairing", lastError: { code: "connection_refused" } })
    await reader.cancel()
  })
})
