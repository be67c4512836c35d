import { storeOver } from "../helpers/sqlite-store"
import { afterEach, describe, expect, test } from "bun:test"
import { createHmac } from "node:crypto"
import { ulidGenerator } from "../../src/lib/ids"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { createWriter } from "../../src/store/sqlite/writer"
import { insertEndpoint } from "../../src/store/sqlite/webhooks"
import { createOutbox } from "../../src/webhooks/outbox"
import { DEFAULT_RETRY_OFFSETS_MS, nextAttemptAtMs } from "../../src/webhooks/retry-policy"
import { OUTSIDE_TEXT_MAX_CHARS } from "../../src/lib/outside-text"
import { postAttempt } from "../../src/webhooks/sender"
import { newSigningSecret, signatureHeader } from "../../src/webhooks/signer"
import { TestClock } from "../helpers/test-clock"
import { verifySignature } from "../helpers/verify-signature"

describe("signatureHeader", () => {
  const body = '{"event":"message.sent","timestamp":"2026-01-05T00:00:00.000Z","data":{}}'

  test.each([
    ["one secret", ["whsec_a"]],
    ["two secrets during a rotation", ["whsec_new", "whsec_old"]],
  ])("with %s: t, then one v1 per secret in order, each the hex HMAC-SHA256 of `t.body`", (_name, secrets) => {
    const header = signatureHeader(secrets, 1767571200, body)
    const expected = secrets.map((s) => `v1=${createHmac("sha256", s).update(`1767571200.${body}`).digest("hex")}`)
    expect(header).toBe(["t=1767571200", ...expected].join(","))
  })

  test("the independent verifier accepts it and refuses a changed body, another secret and a stale t", () => {
    const header = signatureHeader(["whsec_x"], 1000, body)
    expect(verifySignature(header, body, "whsec_x", 1000)).toBe(true)
    expect(verifySignature(header, body + " ", "whsec_x", 1000)).toBe(false)
    expect(verifySignature(header, body, "whsec_y", 1000)).toBe(false)
    expect(verifySignature(header, body, "whsec_x", 1301)).toBe(false)
  })

  test("new secrets are whsec_ + base64 of 32 random bytes, never repeated", () => {
    const a = newSigningSecret()
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(32)
    expect(newSigningSecret()).not.toBe(a)
  })
})

describe("nextAttemptAtMs", () => {
  test.each([
    ["after attempt 1: T0 + 1 min", 1, 1_000, 61_000],
    ["after attempt 2: T0 + 5 min", 2, 61_000, 301_000],
    ["after attempt 3: T0 + 15 min", 3, 301_000, 901_000],
    ["after attempt 4: none left", 4, 901_000, null],
    ["a retry whose time passed (a slow attempt) goes now", 1, 70_000, 70_000],
  ])("%s", (_name, attempt, nowMs, expected) => {
    expect(nextAttemptAtMs(1_000, attempt, DEFAULT_RETRY_OFFSETS_MS, nowMs)).toBe(expected)
  })
})

describe("postAttempt", () => {
  const servers: { stop(force: boolean): unknown }[] = []
  afterEach(() => {
    for (const s of servers.splice(0)) s.stop(true)
  })
  function serve(fetch: (req: Request) => Response | Promise<Response>): string {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch })
    servers.push(server)
    return `http://127.0.0.1:${server.port}/`
  }
  const request = (url: string) => ({ url, headers: { "Content-Type": "application/json" }, body: "{}" })

  test("reads at most 64 KiB of a huge response and keeps its first 256 characters", async () => {
    let streamed = 0
    const url = serve(
      () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              // An endless body: only the reader's cancellation ends it.
              streamed += 16_384
              controller.enqueue(new Uint8Array(16_384).fill(97))
            },
          }),
        ),
    )
    const outcome = await postAttempt(request(url), { timeoutMs: 5_000, clock: new TestClock() })
    expect(outcome).toMatchObject({ delivered: true, statusCode: 200, error: null })
    expect(outcome.responseBody).toHaveLength(OUTSIDE_TEXT_MAX_CHARS)
    expect(streamed).toBeLessThan(10 * 1024 * 1024)
  })

  test("a redirect is reported, not followed", async () => {
    let followed = false
    const target = serve(() => {
      followed = true
      return new Response("ok")
    })
    const url = serve(() => new Response(null, { status: 307, headers: { location: target } }))
    const outcome = await postAttempt(request(url), { timeoutMs: 5_000, clock: new TestClock() })
    expect(outcome).toMatchObject({ delivered: false, gone: false, statusCode: 307, error: `redirect to ${target} not followed` })
    expect(followed).toBe(false)
  })

  test("consecutive attempts to one receiver reuse one kept-alive connection", async () => {
    const ports = new Set<number>()
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req, srv) {
        ports.add(srv.requestIP(req)!.port)
        return new Response("ok")
      },
    })
    servers.push(server)
    for (let i = 0; i < 3; i++) {
      expect(await postAttempt(request(`http://127.0.0.1:${server.port}/hook`), { timeoutMs: 5_000, clock: new TestClock() })).toMatchObject({ delivered: true })
    }
    expect(ports.size).toBe(1)
  })

  // Each answered at once and then held open: only a prompt verdict ends the attempt before its (distant) deadline.
  test.each([
    ["a NUL in a header value", "HTTP/1.1 200 OK\r\nX-Bad: \u0000\r\n\r\n", "the receiver's answer is not valid HTTP/1.1"],
    ["a Content-Length past 2^53", "HTTP/1.1 200 OK\r\nContent-Length: 9007199254740993\r\n\r\nabc", "the receiver's answer is not valid HTTP/1.1"],
    ["two different Content-Lengths", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde", "request failed: InvalidContentLength"],
    ["an unrequested 101 Switching Protocols", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", "request failed: UnrequestedUpgrade"],
  ])("%s fails the attempt at once, its error naming no path or query (which may hold a secret)", async (_name, answer, error) => {
    const listener = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data(socket) {
          socket.write(answer)
        },
      },
    })
    servers.push({ stop: (force) => listener.stop(force) })
    const outcome = await postAttempt(request(`http://127.0.0.1:${listener.port}/t0ken?key=s3cret`), { timeoutMs: 60_000, clock: new TestClock() })
    expect(outcome).toMatchObject({ delivered: false, statusCode: null, error })
  })

  test("410 is reported as gone", async () => {
    const url = serve(() => new Response("bye", { status: 410 }))
    expect(await postAttempt(request(url), { timeoutMs: 5_000, clock: new TestClock() })).toMatchObject({ gone: true, delivered: false, statusCode: 410 })
  })

  test("the shutdown signal abandons an attempt as aborted, not as a timeout", async () => {
    const url = serve(() => new Promise<Response>(() => {}))
    const shutdown = new AbortController()
    const pending = postAttempt(request(url), { timeoutMs: 60_000, clock: new TestClock(), signal: shutdown.signal })
    await Bun.sleep(20)
    shutdown.abort()
    expect(await pending).toMatchObject({ delivered: false, statusCode: null, error: "aborted: wagate was shutting down" })
  })
})

describe("the outbox", () => {
  test("events and deliveries are written in the caller's transaction: a rolled-back change leaves neither", async () => {
    const clock = new TestClock()
    const db = openDatabase(":memory:")
    migrate(db, clock.nowMs())
    const ids = ulidGenerator(clock)
    const writer = createWriter(db)
    const scheduled: string[] = []
    const outbox = createOutbox({ ids, clock, onDeliveryCommitted: (delivery) => scheduled.push(delivery.id), version: () => "fixed" })
    db.run("INSERT INTO accounts (id, name, email, created_at_ms, updated_at_ms) VALUES ('acc_1', 'A', 'a@b.c', 0, 0)")
    insertEndpoint(db, {
      id: "wh_1",
      accountId: "acc_1",
      env: "test",
      url: "http://127.0.0.1:9/",
      events: ["*"],
      enabled: true,
      secret: "whsec_x",
      previousSecret: null,
      previousSecretExpiresAtMs: null,
      createdAtMs: 0,
      updatedAtMs: 0,
    })
    const event = { accountId: "acc_1", env: "test" as const, type: "message.sent" as const, data: { a: 1 }, occurredAtMs: clock.nowMs() }

    await expect(
      writer.write(async (w, tx) => {
        await outbox.record(storeOver(w), { ...tx, notify: () => {} }, event)
        throw new Error("the state change failed")
      }),
    ).rejects.toThrow("the state change failed")
    const count = (table: string) => (db.query(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n
    expect([count("events"), count("webhook_deliveries"), scheduled.length]).toEqual([0, 0, 0])

    await writer.write((w, tx) => outbox.record(storeOver(w), { ...tx, notify: () => {} }, event))
    expect([count("events"), count("webhook_deliveries"), scheduled.length]).toEqual([1, 1, 1])
    const stored = db.query("SELECT body FROM events").get() as { body: string }
    expect(JSON.parse(stored.body)).toEqual({ event: "message.sent", timestamp: "2026-01-05T00:00:00.000Z", data: { a: 1 } })
  })
})
