import { afterEach, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BOOT_STAGGER_MAX_MS, bootStaggerWindowMs } from "../../src/domain/connect-gate"
import type { PhoneRow } from "../../src/store/phones"
import { createHarness, type Harness } from "../helpers/harness"
import { TestClock } from "../helpers/test-clock"
import { FakeGateway, type FakeSession } from "../fakes/fake-gateway"

/*
 * docs/live-whatsapp.md § "Connect concurrency and boot stagger": at most
 * WAGATE_WA_CONNECT_CONCURRENCY sockets are opening at once; a slot is held from `connect()`
 * until the session shows a QR or code, connects or closes; boot spreads first connects.
 */

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

/** Sessions that asked to connect and have not yet connected, shown a code or closed. */
function opening(gateway: FakeGateway, phones: PhoneRow[], settled: Set<FakeSession>): FakeSession[] {
  return phones
    .map((phone) => gateway.sessions.get(phone.id)?.at(-1))
    .filter((session): session is FakeSession => !!session && session.connects.length > 0 && !session.connected && !session.closed && !settled.has(session))
}

async function seedPhones(harness: Harness, count: number): Promise<PhoneRow[]> {
  const { account } = await harness.seedTenant({ env: "live" })
  const phones: PhoneRow[] = []
  for (let index = 0; index < count; index++) phones.push(await harness.seedPhone(account.id))
  return phones
}

describe("bootStaggerWindowMs", () => {
  const cases: Array<[phones: number, concurrency: number, windowMs: number]> = [
    [1, 8, 0],
    [8, 8, 0],
    [9, 8, 90],
    [100, 8, 1_000],
    [1_000, 8, BOOT_STAGGER_MAX_MS],
    [5_000, 8, BOOT_STAGGER_MAX_MS],
    [50, 4, 500],
  ]
  for (const [phones, concurrency, windowMs] of cases) {
    test(`${phones} phones with ${concurrency} connect slots spread their first connects over ${windowMs} ms`, () => {
      expect(bootStaggerWindowMs(phones, concurrency)).toBe(windowMs)
    })
  }
})

describe("connect concurrency", () => {
  test("50 phones pairing with 4 slots: never more than 4 sockets open at once, and all 50 end connected", async () => {
    h = await createHarness({ env: { WAGATE_WA_CONNECT_CONCURRENCY: "4" } })
    const phones = await seedPhones(h, 50)
    for (const phone of phones) await h.services.sessions.connect(phone.id, "qr")
    await h.settle()
    const settled = new Set<FakeSession>()
    let rounds = 0
    while (true) {
      const now = opening(h.gateway, phones, settled)
      expect(now.length).toBeLessThanOrEqual(4)
      if (now.length === 0) break
      rounds++
      // Half of them show a QR first (the slot is given back while a person scans), half connect at once.
      for (const [index, session] of now.entries()) {
        const phone = phones.find((candidate) => candidate.id === session.phoneId)!
        if (index % 2 === 0) {
          session.showQr()
          settled.add(session)
        }
        session.open(phone.phoneNumber)
      }
      await h.settle()
    }
    expect(rounds).toBeGreaterThanOrEqual(50 / 4)
    expect(phones.filter((phone) => h!.services.sessions.sessionOf(phone.id) !== null)).toHaveLength(50)
  })

  test("a failed attempt gives its slot back: the waiting phone opens, and the failed one retries later", async () => {
    h = await createHarness({ env: { WAGATE_WA_CONNECT_CONCURRENCY: "1" } })
    const [first, second] = await seedPhones(h, 2)
    await h.services.sessions.connect(first!.id, "qr")
    await h.services.sessions.connect(second!.id, "qr")
    await h.settle()
    expect(h.gateway.current(first!.id).connects).toHaveLength(1)
    expect(h.gateway.current(second!.id).connects).toHaveLength(0)

    h.gateway.current(first!.id).drop("connection_lost")
    await h.settle()
    expect(h.gateway.current(second!.id).connects).toHaveLength(1)

    // The retry of the first phone is due after its backoff, then waits for the slot the second holds.
    await h.advance(60_000)
    await h.settle()
    expect(h.gateway.sessions.get(first!.id)).toHaveLength(2)
    expect(h.gateway.current(first!.id).connects).toHaveLength(0)
    h.gateway.current(second!.id).open(second!.phoneNumber)
    await h.settle()
    expect(h.gateway.current(first!.id).connects).toHaveLength(1)
  })

  test("a phone disconnected by the operator while it waited for a slot never opens a socket", async () => {
    h = await createHarness({ env: { WAGATE_WA_CONNECT_CONCURRENCY: "1" } })
    const [first, second] = await seedPhones(h, 2)
    await h.services.sessions.connect(first!.id, "qr")
    await h.services.sessions.connect(second!.id, "qr")
    await h.services.sessions.disconnect(second!.id)
    h.gateway.current(first!.id).open(first!.phoneNumber)
    await h.settle()
    expect(h.gateway.sessions.get(second!.id)!.every((session) => session.connects.length === 0)).toBe(true)
    // The slot went back: a new request for the second phone opens at once.
    await h.services.sessions.connect(second!.id, "qr")
    expect(h.gateway.current(second!.id).connects).toHaveLength(1)
  })
})

describe("the phase after a QR scan", () => {
  test("a scan takes a slot, the fresh socket WhatsApp asks for opens on it at once, and its login gives it back", async () => {
    h = await createHarness({ env: { WAGATE_WA_CONNECT_CONCURRENCY: "2" } })
    const [scanning, second, third] = await seedPhones(h, 3)
    await h.services.sessions.connect(scanning!.id, "qr")
    await h.settle()
    h.gateway.current(scanning!.id).showQr()
    await h.services.sessions.connect(second!.id, "qr")
    await h.settle()
    // The QR gave its slot back: the second phone opened beside it.
    expect(h.gateway.current(second!.id).connects).toHaveLength(1)

    h.gateway.current(scanning!.id).scan()
    await h.services.sessions.connect(third!.id, "qr")
    await h.settle()
    expect(h.gateway.current(third!.id).connects).toHaveLength(0)

    // WhatsApp closes the paired socket and asks for a fresh one: it opens ahead of the waiting phone.
    h.gateway.credentials.add(scanning!.id)
    h.gateway.current(scanning!.id).drop("restart_required")
    await h.settle()
    expect(h.gateway.sessions.get(scanning!.id)).toHaveLength(2)
    expect(h.gateway.current(scanning!.id).connects).toHaveLength(1)
    expect(h.gateway.current(third!.id).connects).toHaveLength(0)

    h.gateway.current(scanning!.id).open(scanning!.phoneNumber)
    await h.settle()
    expect(h.gateway.current(third!.id).connects).toHaveLength(1)
  })

  test("a scanned phone whose fresh socket fails gives its slot back to the waiting phone", async () => {
    h = await createHarness({ env: { WAGATE_WA_CONNECT_CONCURRENCY: "1" } })
    const [scanning, waiting] = await seedPhones(h, 2)
    await h.services.sessions.connect(scanning!.id, "qr")
    await h.settle()
    h.gateway.current(scanning!.id).showQr()
    h.gateway.current(scanning!.id).scan()
    await h.services.sessions.connect(waiting!.id, "qr")
    await h.settle()
    expect(h.gateway.current(waiting!.id).connects).toHaveLength(0)
    h.gateway.current(scanning!.id).drop("connection_lost")
    await h.settle()
    expect(h.gateway.current(waiting!.id).connects).toHaveLength(1)
  })
})

describe("boot stagger", () => {
  test("boot spreads 50 paired phones' first connects across the window, and all 50 reconnect", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wagate-connect-gate-"))
    try {
      const databasePath = join(dir, "wagate.db")
      const gateway = new FakeGateway()
      const clock = new TestClock()
      h = await createHarness({ databasePath, gateway, clock })
      const phones = await seedPhones(h, 50)
      for (const phone of phones) gateway.credentials.add(phone.id)
      await h.close()

      // A deterministic spread of jitter values across [0, 1).
      let draw = 0
      const random = () => ((draw++ * 0.618_033_988_75) % 1)
      h = await createHarness({ databasePath, gateway, clock, random })
      const bootAtMs = clock.nowMs()
      const windowMs = bootStaggerWindowMs(50, 8)
      await h.settle()
      const firstConnectAtMs = new Map<string, number>()
      for (let elapsedMs = 0; elapsedMs <= windowMs + 100; elapsedMs += 10) {
        for (const phone of phones) {
          const session = gateway.sessions.get(phone.id)?.at(-1)
          if (!session || session.connects.length === 0 || firstConnectAtMs.has(phone.id)) continue
          firstConnectAtMs.set(phone.id, clock.nowMs() - bootAtMs)
          session.open(phone.phoneNumber)
        }
        await h.advance(10)
        await h.settle()
      }
      const offsets = [...firstConnectAtMs.values()]
      expect(offsets).toHaveLength(50)
      expect(Math.min(...offsets)).toBeLessThan(windowMs / 4)
      expect(Math.max(...offsets)).toBeGreaterThan((windowMs * 3) / 4)
      // No tenth of the window holds more than a quarter of the phones.
      const perTenth = new Map<number, number>()
      for (const offset of offsets) perTenth.set(Math.floor((offset / windowMs) * 10), (perTenth.get(Math.floor((offset / windowMs) * 10)) ?? 0) + 1)
      expect(Math.max(...perTenth.values())).toBeLessThanOrEqual(50 / 4)
      expect(phones.filter((phone) => h!.services.sessions.sessionOf(phone.id) !== null)).toHaveLength(50)
    } finally {
      await h?.close()
      h = undefined
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
