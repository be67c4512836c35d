import { afterEach, describe, expect, test } from "bun:test"
import { createApp } from "../../src/app"
import { loadConfig } from "../../src/config"
import { createServices, type Services } from "../../src/deps"
import { createAccount } from "../../src/domain/accounts"
import { createApiKey } from "../../src/domain/api-keys"
import { addPhone } from "../../src/domain/phones"
import { CANONICAL_SCOPES } from "../../src/domain/scopes"
import { silentLogger } from "../../src/lib/logger"
import { FakeGateway } from "../fakes/fake-gateway"
import { TestClock } from "../helpers/test-clock"

/*
 * The jitter bounds (API-DECISIONS §7 ±30 % around WAGATE_SEND_INTERVAL_MS; §9 reconnect delays
 * jittered within the capped backoff). The harness fixes random at 0.5; here it is set to its
 * extremes so the bounds are exact.
 */

let services: Services | null = null
afterEach(async () => {
  await services?.stop()
  services = null
})

async function world(random: () => number) {
  const clock = new TestClock()
  const gateway = new FakeGateway()
  services = await createServices(loadConfig({}), { clock, logger: silentLogger, databasePath: ":memory:", gateway, random })
  await services.start()
  const app = createApp(services)
  const ctx = services.ctx
  const account = await createAccount(ctx, "Jitter", "j@example.com")
  const phone = await addPhone(ctx, account.id, "+14155550123")
  const { key } = await createApiKey(ctx, { accountId: account.id, env: "live", scopes: [...CANONICAL_SCOPES], expiresAtMs: null })
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
  }
  await services.sessions.connect(phone.id, "qr")
  gateway.current(phone.id).open(phone.phoneNumber)
  await settle()
  const send = (content: string) =>
    app.handle(
      new Request("http://localhost/v1/messages/send", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ fromPhoneId: phone.phoneNumber, to: "+14155550199", content }),
      }),
    )
  const tick = async (ms: number) => {
    clock.advance(ms)
    await settle()
  }
  return { clock, gateway, phone, send, settle, tick }
}

describe("jitter bounds", () => {
  test.each([
    ["lowest draw: 0.7 × the interval", () => 0, 700],
    ["highest draw: 1.3 × the interval", () => 0.999999, 1_300],
  ])("send pacing, %s", async (_name, random, gap) => {
    const w = await world(random)
    await w.send("one")
    await w.send("two")
    await w.settle()
    expect(w.gateway.sent.length).toBe(1)
    await w.tick(gap - 1)
    expect(w.gateway.sent.length).toBe(1)
    await w.tick(1)
    expect(w.gateway.sent.length).toBe(2)
  })

  test.each([
    ["lowest draw: half the capped delay", () => 0, [500, 1_000, 2_000]],
    ["highest draw: the whole capped delay", () => 0.999999, [1_000, 2_000, 4_000]],
  ])("reconnect backoff, %s", async (_name, random, delays) => {
    const w = await world(random)
    const count = () => w.gateway.sessions.get(w.phone.id)!.length
    w.gateway.current(w.phone.id).drop("connection_lost")
    await w.settle()
    for (const delay of delays) {
      const before = count()
      await w.tick(delay - 10)
      expect(count()).toBe(before)
      await w.tick(10)
      expect(count()).toBe(before + 1)
      w.gateway.current(w.phone.id).drop("connection_lost")
      await w.settle()
    }
  })
})
