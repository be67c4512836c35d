import { Database } from "bun:sqlite"
import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { DisconnectReason } from "../../src/whatsapp/gateway"
import { createHarness, type Harness } from "../helpers/harness"
import { TestClock } from "../helpers/test-clock"
import { FakeGateway } from "../fakes/fake-gateway"
import { WebhookReceiver } from "../helpers/webhook-receiver"
import { addEndpoint } from "../helpers/webhooks"
import { eventsOf, iso, recordEvents } from "./live-helpers"

/*
 * API-DECISIONS §9: connectionStatus values, phone.connected / phone.disconnected payloads,
 * reconnect with capped jittered backoff (1 s … 60 s; random is fixed at 0.5 here, so each delay
 * is exactly 0.75 × the capped delay), no loop on the terminal reasons, paired phones started at
 * boot from their stored credentials.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h?.close())

const status = async (phoneId: string) => (await h.request("GET", `/admin/v1/phones/${phoneId}/pairing`, { key: await h.adminToken() })).body.data.connectionStatus
const sessionsOf = (phoneId: string) => h.gateway.sessions.get(phoneId)?.length ?? 0

async function tick(ms: number) {
  await h.advance(ms)
  await h.settle()
}

async function pairedPhone() {
  const { account, phone } = await h.seedTenant({ env: "live" })
  await recordEvents(h, account.id)
  await h.connectPhone(phone)
  return { account, phone }
}

describe("pairing and connection status", () => {
  test("connect by QR: pairing with the QR → connected, and phone.connected carries exactly the §9 fields", async () => {
    const receiver = new WebhookReceiver()
    try {
      const { account, phone } = await h.seedTenant({ env: "live" })
      await addEndpoint(h, account.id, receiver.url(), { environment: "live" })
      await h.services.sessions.connect(phone.id, "qr")
      await h.settle()
      const session = h.gateway.current(phone.id)
      expect(session.paired).toBe(false)
      expect(session.connects).toEqual([{ method: "qr" }])
      expect(await status(phone.id)).toBe("pairing")
      session.showQr("2@qr-one")
      await h.settle()
      expect(await h.services.sessions.pairingState(phone.id)).toMatchObject({ connectionStatus: "pairing", qr: "2@qr-one", pairingCode: null })
      await h.advance(2_000)
      const connectedAt = h.clock.nowMs()
      session.open(phone.phoneNumber)
      await h.settle()
      expect(await h.services.sessions.pairingState(phone.id)).toMatchObject({ connectionStatus: "connected", qr: null, pairingCode: null })

      await h.advance(10)
      const [hook] = await receiver.waitFor(1)
      expect(hook!.json).toEqual({
        event: "phone.connected",
        timestamp: iso(connectedAt),
        data: {
          phoneId: phone.id,
          phoneNumber: phone.phoneNumber,
          connectionStatus: "connected",
          lastConnectedAt: iso(connectedAt),
          lastDisconnectedAt: null,
          reason: null,
          willReconnect: false,
        },
      })
      // Pairing states are not webhook events: only the connection change is.
      expect(receiver.received.length).toBe(1)
    } finally {
      await receiver.stop()
    }
  })

  test("connect by code: the pairing code is shown and the session was asked to pair the phone's own number", async () => {
    const { phone } = await h.seedTenant({ env: "live" })
    await h.services.sessions.connect(phone.id, "code")
    const session = h.gateway.current(phone.id)
    expect(session.connects).toEqual([{ method: "code", phoneNumber: phone.phoneNumber }])
    session.showPairingCode("WXYZ9876")
    await h.settle()
    expect(await h.services.sessions.pairingState(phone.id)).toMatchObject({ connectionStatus: "pairing", qr: null, pairingCode: "WXYZ9876" })
  })

  test("connection lost: phone.disconnected {disconnected, reason, willReconnect true}; the reconnect goes connecting → connected with phone.connected", async () => {
    const { phone } = await pairedPhone()
    const connectedAt = h.clock.nowMs()
    await h.advance(5_000)
    h.gateway.current(phone.id).drop("connection_lost")
    await h.settle()
    expect(await status(phone.id)).toBe("disconnected")
    expect(eventsOf(h, "phone.disconnected")).toEqual([
      {
        event: "phone.disconnected",
        timestamp: iso(connectedAt + 5_000),
        data: {
          phoneId: phone.id,
          phoneNumber: phone.phoneNumber,
          connectionStatus: "disconnected",
          lastConnectedAt: iso(connectedAt),
          lastDisconnectedAt: iso(connectedAt + 5_000),
          reason: "connection_lost",
          willReconnect: true,
        },
      },
    ])
    await tick(750)
    expect(await status(phone.id)).toBe("connecting")
    h.gateway.current(phone.id).open(phone.phoneNumber)
    await h.settle()
    expect(await status(phone.id)).toBe("connected")
    expect(eventsOf(h).map((e) => e.event)).toEqual(["phone.connected", "phone.disconnected", "phone.connected"])
    expect(eventsOf(h, "phone.connected")[1]!.data).toEqual({
      phoneId: phone.id,
      phoneNumber: phone.phoneNumber,
      connectionStatus: "connected",
      lastConnectedAt: iso(connectedAt + 5_750),
      lastDisconnectedAt: iso(connectedAt + 5_000),
      reason: null,
      willReconnect: false,
    })
  })

  test("backoff doubles from 1 s and caps at 60 s (0.75 × with the fixed jitter), and starts over after a successful connect", async () => {
    const { phone } = await pairedPhone()
    h.gateway.current(phone.id).drop("connection_lost")
    await h.settle()
    const delays = [750, 1_500, 3_000, 6_000, 12_000, 24_000, 45_000, 45_000, 45_000]
    for (const delay of delays) {
      const before = sessionsOf(phone.id)
      await tick(delay - 1)
      expect(sessionsOf(phone.id)).toBe(before)
      await tick(1)
      expect(sessionsOf(phone.id)).toBe(before + 1)
      expect(await status(phone.id)).toBe("connecting")
      h.gateway.current(phone.id).drop("connection_lost")
      await h.settle()
      expect(await status(phone.id)).toBe("disconnected")
    }
    // Only the first drop (leaving connected) is an event; failed attempts do not repeat it.
    expect(eventsOf(h, "phone.disconnected").length).toBe(1)

    const before = sessionsOf(phone.id)
    await tick(45_000)
    expect(sessionsOf(phone.id)).toBe(before + 1)
    h.gateway.current(phone.id).open(phone.phoneNumber)
    await h.settle()
    h.gateway.current(phone.id).drop("connection_lost")
    await h.settle()
    await tick(749)
    expect(sessionsOf(phone.id)).toBe(before + 1)
    await tick(1)
    expect(sessionsOf(phone.id)).toBe(before + 2)
  })

  test("bad_session reconnects like a lost connection", async () => {
    const { phone } = await pairedPhone()
    h.gateway.current(phone.id).drop("bad_session")
    await h.settle()
    expect(eventsOf(h, "phone.disconnected")[0]!.data).toMatchObject({ reason: "bad_session", willReconnect: true })
    await tick(750)
    expect(sessionsOf(phone.id)).toBe(2)
  })

  test.each<[DisconnectReason, number]>([
    ["replaced", 440],
    ["forbidden", 403],
    ["outdated_version", 405],
    ["multidevice_mismatch", 411],
  ])("%s (%d) never reconnects: disconnected, willReconnect false, credentials kept", async (reason, code) => {
    const { phone } = await pairedPhone()
    h.gateway.current(phone.id).drop(reason)
    await h.settle()
    expect(await status(phone.id)).toBe("disconnected")
    expect(eventsOf(h, "phone.disconnected").map((e) => e.data)).toEqual([
      expect.objectContaining({ connectionStatus: "disconnected", reason, willReconnect: false }),
    ])
    await tick(10 * 60_000)
    expect(sessionsOf(phone.id)).toBe(1)
    expect(await h.gateway.hasCredentials(phone.id)).toBe(true)
    // The operator can bring it back by hand: it logs in with the kept credentials.
    await h.services.sessions.connect(phone.id, "qr")
    expect(h.gateway.current(phone.id).connects).toEqual([undefined])
  })

  test("restart_required opens a new socket at once (no backoff) that logs in with the new credentials", async () => {
    const { phone } = await h.seedTenant({ env: "live" })
    await h.services.sessions.connect(phone.id, "qr")
    const pairing = h.gateway.current(phone.id)
    pairing.showQr()
    await h.settle()
    // The scan stored credentials; WhatsApp then asks for a fresh socket.
    h.gateway.credentials.add(phone.id)
    pairing.drop("restart_required")
    await h.settle()
    expect(sessionsOf(phone.id)).toBe(2)
    const fresh = h.gateway.current(phone.id)
    expect(fresh.paired).toBe(true)
    expect(fresh.connects).toEqual([undefined])
    expect(await status(phone.id)).toBe("connecting")
    fresh.open(phone.phoneNumber)
    await h.settle()
    expect(await status(phone.id)).toBe("connected")
  })

  test("pairing_expired returns an unpaired phone to unpaired, clears the QR and does not retry", async () => {
    const { phone } = await h.seedTenant({ env: "live" })
    await h.services.sessions.connect(phone.id, "qr")
    h.gateway.current(phone.id).showQr("2@soon-expired")
    await h.settle()
    h.gateway.current(phone.id).drop("pairing_expired")
    await h.settle()
    expect(await h.services.sessions.pairingState(phone.id)).toMatchObject({ connectionStatus: "unpaired", qr: null, pairingCode: null })
    await tick(10 * 60_000)
    expect(sessionsOf(phone.id)).toBe(1)
  })

  test("a paired account whose number differs from the phone's is unlinked: logged_out, reason phone_number_mismatch", async () => {
    const { account, phone } = await h.seedTenant({ env: "live" })
    await recordEvents(h, account.id)
    await h.services.sessions.connect(phone.id, "qr")
    const session = h.gateway.current(phone.id)
    session.open("+447700900123")
    await h.settle()
    expect(session.loggedOut).toBe(true)
    expect(await h.gateway.hasCredentials(phone.id)).toBe(false)
    expect(await status(phone.id)).toBe("logged_out")
    expect(h.services.sessions.sessionOf(phone.id)).toBeNull()
    expect(eventsOf(h).map((e) => [e.event, e.data.connectionStatus, e.data.reason, e.data.willReconnect])).toEqual([
      ["phone.disconnected", "logged_out", "phone_number_mismatch", false],
    ])
    await tick(10 * 60_000)
    expect(sessionsOf(phone.id)).toBe(1)
  })

  test("the mismatch keeps its reason when unlinking closes the socket with WhatsApp's own logged_out", async () => {
    const { account, phone } = await h.seedTenant({ env: "live" })
    await recordEvents(h, account.id)
    await h.services.sessions.connect(phone.id, "qr")
    const session = h.gateway.current(phone.id)
    const logout = session.logout.bind(session)
    // A real socket reports the unlink as a close with 401 while logout() is still running.
    session.logout = async () => {
      session.drop("logged_out")
      await logout()
    }
    session.open("+447700900123")
    await h.settle()
    expect(await status(phone.id)).toBe("logged_out")
    expect(eventsOf(h).map((e) => [e.event, e.data.reason])).toEqual([["phone.disconnected", "phone_number_mismatch"]])
  })

  test("connect during the reconnect backoff opens one socket, not two", async () => {
    const { phone } = await pairedPhone()
    h.gateway.current(phone.id).drop("connection_lost")
    await h.settle()
    await h.services.sessions.connect(phone.id, "qr")
    expect(sessionsOf(phone.id)).toBe(2)
    await tick(60_000)
    expect(sessionsOf(phone.id)).toBe(2)
    h.gateway.current(phone.id).open(phone.phoneNumber)
    await h.settle()
    expect(await status(phone.id)).toBe("connected")
  })

  test("stop closes every socket; its close events change nothing", async () => {
    const { phone } = await pairedPhone()
    const session = h.gateway.current(phone.id)
    await h.close()
    expect(session.closed).toBe(true)
    h = undefined as never
  })
})

/**
 * Runs a boot scenario on a database file in a temporary directory, with one gateway and one
 * clock that outlive the harnesses the scenario creates (a restart is a new harness on them).
 */
async function onDisk(scenario: (disk: { databasePath: string; gateway: FakeGateway; clock: TestClock }) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "wagate-sessions-"))
  await h.close()
  try {
    await scenario({ databasePath: join(dir, "wagate.db"), gateway: new FakeGateway(), clock: new TestClock() })
  } finally {
    await h.close()
    h = undefined as never
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("boot", () => {
  test("a crashed process's connected phone is announced as reconnecting at boot", async () => {
    await onDisk(async ({ databasePath, gateway, clock }) => {
      h = await createHarness({ databasePath, gateway, clock })
      const { account, phone } = await h.seedTenant({ env: "live" })
      await recordEvents(h, account.id)
      await h.connectPhone(phone)
      const connectedAt = clock.nowMs()
      await h.close()
      // A SIGKILL runs no shutdown code: the row still says connected.
      const raw = new Database(databasePath)
      raw.run("UPDATE phones SET connection_status = 'connected', last_disconnected_at_ms = NULL")
      raw.run("DELETE FROM events")
      raw.close()
      clock.advance(60_000)
      h = await createHarness({ databasePath, gateway, clock })
      await h.settle()
      expect(eventsOf(h, "phone.disconnected").map((e) => e.data)).toEqual([
        {
          phoneId: phone.id,
          phoneNumber: phone.phoneNumber,
          connectionStatus: "connecting",
          lastConnectedAt: iso(connectedAt),
          lastDisconnectedAt: iso(connectedAt + 60_000),
          reason: "server_restarted",
          willReconnect: true,
        },
      ])
    })
  })

  test.each<[string, (phoneId: string) => Promise<void>]>([
    ["the operator disconnected", async (phoneId) => void (await h.services.sessions.disconnect(phoneId))],
    [
      "WhatsApp replaced (440)",
      async (phoneId) => {
        h.gateway.current(phoneId).drop("replaced")
        await h.settle()
      },
    ],
  ])("a phone %s stays offline across a restart until it is connected again", async (_name, takeOffline) => {
    await onDisk(async ({ databasePath, gateway, clock }) => {
      h = await createHarness({ databasePath, gateway, clock })
      const { account, phone } = await h.seedTenant({ env: "live" })
      const other = await h.seedPhone(account.id)
      await h.connectPhone(phone)
      await h.connectPhone(other)
      await takeOffline(phone.id)
      await h.close()

      h = await createHarness({ databasePath, gateway, clock })
      await h.settle()
      expect(gateway.sessions.get(phone.id)!.length).toBe(1)
      expect(await status(phone.id)).toBe("disconnected")
      // Only the phone taken offline: the other one reconnects as usual.
      expect(gateway.sessions.get(other.id)!.length).toBe(2)

      await h.services.sessions.connect(phone.id, "qr")
      gateway.current(phone.id).open(phone.phoneNumber)
      await h.settle()
      expect(await status(phone.id)).toBe("connected")
      await h.close()
      // Connected again, it is back in the boot's list.
      h = await createHarness({ databasePath, gateway, clock })
      await h.settle()
      expect(gateway.sessions.get(phone.id)!.length).toBe(3)
    })
  })

  test("phones with stored credentials are started at boot; unpaired phones are not; a pairing cut short becomes unpaired", async () => {
    await onDisk(async ({ databasePath, gateway, clock }) => {
      h = await createHarness({ databasePath, gateway, clock })
      const { account, phone: paired } = await h.seedTenant({ env: "live" })
      await recordEvents(h, account.id)
      const unpaired = await h.seedPhone(account.id)
      const halfPaired = await h.seedPhone(account.id)
      await h.connectPhone(paired)
      const connectedAt = clock.nowMs()
      await h.services.sessions.connect(halfPaired.id, "qr")
      h.gateway.current(halfPaired.id).showQr()
      await h.settle()
      await h.close()

      clock.advance(60_000)
      h = await createHarness({ databasePath, gateway, clock })
      await h.settle()
      expect(gateway.sessions.get(paired.id)!.length).toBe(2)
      expect(gateway.current(paired.id).connects).toEqual([undefined])
      expect(gateway.sessions.get(unpaired.id)).toBeUndefined()
      expect(gateway.sessions.get(halfPaired.id)!.length).toBe(1)
      expect(await status(paired.id)).toBe("connecting")
      expect(await status(unpaired.id)).toBe("unpaired")
      expect(await status(halfPaired.id)).toBe("unpaired")

      // The graceful stop recorded the phone as disconnected, to be back; the boot adds nothing.
      expect(eventsOf(h, "phone.disconnected").map((e) => e.data)).toEqual([
        {
          phoneId: paired.id,
          phoneNumber: paired.phoneNumber,
          connectionStatus: "disconnected",
          lastConnectedAt: iso(connectedAt),
          lastDisconnectedAt: iso(connectedAt),
          reason: "server_stopped",
          willReconnect: true,
        },
      ])
      gateway.current(paired.id).open(paired.phoneNumber)
      await h.settle()
      expect(await status(paired.id)).toBe("connected")
    })
  })
})
