import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { Database } from "bun:sqlite"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { VERSION } from "../../src/version"
import { adminTokenIn, call, cleanupProcesses, dataDir, freePort, LISTENING, sandboxKeyIn, spawn, start, stop } from "../helpers/wagate-process"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

afterEach(cleanupProcesses, SLOW_HOOK_TIMEOUT_MS)

describe("wagate serve as a process", () => {
  test("first run prints a working sandbox key, an admin token and the next step; a second start prints no new key", async () => {
    const dir = dataDir()
    const first = await start(dir)
    await first.p.waitFor(/Admin token: .*\n[\s\S]*API reference: .*\n/)
    const m = LISTENING.exec(first.p.out)!
    expect(m[1]).toBe(VERSION)
    expect(m[4]).toBe(dir)
    const key = sandboxKeyIn(first.p.out)!
    const admin = adminTokenIn(first.p.out)!
    expect(key).toBeDefined()
    expect(admin).toBeDefined()
    expect(first.p.out).toContain("Next step: add a phone (test keys can send from it at once, no pairing needed):")
    // The banner shows the command as it was run: Bun (by the path this test spawned it with) and the script.
    expect(first.p.out).toContain(`  ${process.execPath} src/main.ts phones add +14155550123 --name 'Support' --data ${dir}`)
    // Secrets go to stdout once, never into the log.
    expect(first.p.err).not.toContain(key)
    expect(first.p.err).not.toContain(admin)

    const account = await call(first.base, "GET", "/v1/account", key)
    expect(account.status).toBe(200)
    expect(account.body.data).toMatchObject({ name: "Default account", subscriptionStatus: "active" })
    const accounts = await call(first.base, "GET", "/admin/v1/accounts", admin)
    expect(accounts.status).toBe(200)
    expect(accounts.body.data).toHaveLength(1)

    expect(await stop(first)).toBe(0)

    const second = await start(dir)
    // The old key and token still work after the restart.
    expect((await call(second.base, "GET", "/v1/account", key)).status).toBe(200)
    expect((await call(second.base, "GET", "/admin/v1/accounts", admin)).status).toBe(200)
    expect(await stop(second)).toBe(0)
    expect(second.p.out).toMatch(LISTENING)
    expect(second.p.out).not.toContain("First run")
    expect(second.p.out).not.toContain("Sandbox key")
    expect(second.p.out).not.toContain("Admin token")
    expect(second.p.out).not.toMatch(/sk_test_|adm_/)
  })

  test("a second serve on the same data directory exits 1 naming the running pid", async () => {
    const dir = dataDir()
    const first = await start(dir)

    const second = spawn(["serve", "--data", dir, "--port", "0"])
    expect(await second.exited()).toBe(1)
    expect(second.err).toContain(`Another wagate (pid ${first.p.pid}, port ${first.port}) is already serving this data directory.`)
    expect(second.err).toContain(join(dir, "wagate.lock"))
    expect(second.out).not.toMatch(LISTENING)

    // The first one is unaffected.
    expect(first.p.running).toBe(true)
    const key = sandboxKeyIn(first.p.out)!
    expect((await call(first.base, "GET", "/v1/account", key)).status).toBe(200)
  })

  test("SIGTERM exits 0 within 10 s and removes the lock file", async () => {
    const dir = dataDir()
    const server = await start(dir)
    const lockPath = join(dir, "wagate.lock")
    expect(JSON.parse(readFileSync(lockPath, "utf8"))).toMatchObject({ pid: server.p.pid, port: server.port })
    // An open keep-alive connection must not hold the shutdown up.
    expect((await fetch(`${server.base}/v1/account`)).status).toBe(401)

    const startedAt = Date.now()
    expect(await stop(server)).toBe(0)
    expect(Date.now() - startedAt).toBeLessThan(10_000)
    expect(existsSync(lockPath)).toBe(false)
    expect(server.p.err).toContain('"msg":"shutting down","signal":"SIGTERM"')
  })

  test("a lock left by a killed server is taken over", async () => {
    const dir = dataDir()
    const first = await start(dir)
    first.p.kill("SIGKILL")
    await first.p.exited()
    expect(existsSync(join(dir, "wagate.lock"))).toBe(true)
    const second = await start(dir)
    expect(JSON.parse(readFileSync(join(dir, "wagate.lock"), "utf8")).pid).toBe(second.p.pid)
    expect(await stop(second)).toBe(0)
  })

  test(
    "a sandbox send's delivered and read transitions survive a restart, at their original times",
    async () => {
      const dir = dataDir()
      const env = { WAGATE_SANDBOX_DELIVERED_MS: "1500", WAGATE_SANDBOX_READ_MS: "3000" }
      const first = await start(dir, env)
      await first.p.waitFor(/Admin token: .*\n/)
      const key = sandboxKeyIn(first.p.out)!
      const admin = adminTokenIn(first.p.out)!

      const accountId = (await call(first.base, "GET", "/admin/v1/accounts", admin)).body.data[0].accountId
      const phone = await call(first.base, "POST", `/admin/v1/accounts/${accountId}/phones`, admin, {
        phoneNumber: "+14155550123",
        displayName: "Support",
      })
      expect(phone.status).toBe(201)

      const sent = await call(first.base, "POST", "/v1/messages/send", key, { fromPhoneId: "+14155550123", to: "+14155550199", content: "Hello" })
      expect(sent.status).toBe(201)
      const { id, createdAt } = sent.body.data
      expect(sent.body.data).toMatchObject({ status: "sent", sentAt: createdAt, deliveredAt: null, readAt: null })

      // Stop right away, well before the 1.5 s delivery.
      expect(await stop(first)).toBe(0)

      // Both transitions were still pending when the server stopped: they live in the database.
      const db = new Database(join(dir, "wagate.db"))
      try {
        expect(db.query("SELECT status FROM messages WHERE id = ?").get(id)).toEqual({ status: "sent" })
        const pending = db.query("SELECT sandbox_delivered_due_ms AS deliveredDueMs, sandbox_read_due_ms AS readDueMs FROM messages WHERE id = ?").get(id)
        const created = Date.parse(createdAt)
        expect(pending).toEqual({ deliveredDueMs: created + 1500, readDueMs: created + 3000 })
      } finally {
        db.close()
      }

      const second = await start(dir, env)
      const deadline = Date.now() + 15_000
      const seen = new Set<string>()
      let message: any
      for (;;) {
        message = (await call(second.base, "GET", `/v1/messages/${id}`, key)).body.data
        seen.add(message.status)
        if (message.status === "read" || Date.now() > deadline) break
        await Bun.sleep(50)
      }
      expect(message.status).toBe("read")
      const created = Date.parse(createdAt)
      expect(message.createdAt).toBe(createdAt)
      expect(message.sentAt).toBe(createdAt)
      expect(message.deliveredAt).toBe(new Date(created + 1500).toISOString())
      expect(message.readAt).toBe(new Date(created + 3000).toISOString())
      expect(message.failedAt).toBeNull()
      expect([...seen].every((s) => ["sent", "delivered", "read"].includes(s))).toBe(true)
      expect(await stop(second)).toBe(0)
    },
    40_000,
  )

  test("WAGATE_PORT and WAGATE_HOST are honoured", async () => {
    const dir = dataDir()
    const port = freePort()
    const server = await start(dir, { WAGATE_PORT: String(port), WAGATE_HOST: "127.0.0.1" }, [])
    expect(server.host).toBe("127.0.0.1")
    expect(server.port).toBe(port)
    await server.p.waitFor(/Sandbox key: .*\n/)
    const key = sandboxKeyIn(server.p.out)!
    const res = await call(`http://127.0.0.1:${port}`, "GET", "/v1/account", key)
    expect(res.status).toBe(200)
    expect(JSON.parse(readFileSync(join(dir, "wagate.lock"), "utf8")).port).toBe(port)
  })

  test("--port and --host win over WAGATE_PORT and WAGATE_HOST", async () => {
    const dir = dataDir()
    const envPort = freePort()
    const flagPort = freePort()
    const server = await start(dir, { WAGATE_PORT: String(envPort), WAGATE_HOST: "localhost" }, ["--port", String(flagPort), "--host", "127.0.0.1"])
    expect(server.host).toBe("127.0.0.1")
    expect(server.port).toBe(flagPort)
    const res = await fetch(`http://127.0.0.1:${flagPort}/v1/account`)
    expect(res.status).toBe(401)
    await expect(fetch(`http://127.0.0.1:${envPort}/v1/account`)).rejects.toThrow()
  })

  test("an invalid WAGATE_PORT exits 1 with an actionable message", async () => {
    const dir = dataDir()
    const p = spawn(["serve", "--data", dir], { WAGATE_PORT: "eighty" })
    expect(await p.exited()).toBe(1)
    expect(p.err).toBe('error: WAGATE_PORT must be a whole number between 0 and 65535, got "eighty"\n')
    expect(existsSync(join(dir, "wagate.lock"))).toBe(false)
  })
})
