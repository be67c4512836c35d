import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../src/cli/index"
import { VERSION } from "../../src/version"
import { SHUTDOWN_GRACE_MS } from "../../src/cli/serve"
import { openStream } from "../helpers/event-stream-client"
import { makeDataDir, removeDataDir, serve, type InProcessServer } from "./run-cli"

let dir: string
let running: InProcessServer | null = null
beforeEach(() => {
  dir = makeDataDir()
})
afterEach(async () => {
  await running?.stop()
  running = null
  removeDataDir(dir)
})

describe("wagate serve (in-process)", () => {
  test.each([
    ["bun src/main.ts", "from a checkout"],
    ["./dist/wagate", "the executable by relative path"],
    ["wagate", "the executable on the PATH"],
  ])("the first-run banner's next step starts with the command as it was run: %s (%s)", async (invocation) => {
    running = await serve(dir, ["serve", "--port", "0", "--host", "127.0.0.1"], invocation)
    // The data directory is not ./data of the working directory, so the command carries it.
    expect(running.stdout()).toContain(`\n  ${invocation} phones add +14155550123 --name 'Support' --data ${dir}\n`)
  })


  test("first run sets up, serves with the printed key, holds the lock, and stops with exit 0", async () => {
    running = await serve(dir, ["serve", "--port", "0", "--host", "127.0.0.1"])
    const out = running.stdout()
    expect(out).toStartWith(`wagate ${VERSION} listening on ${running.url} (data: ${dir})\n`)
    const key = /Sandbox key: {2}(sk_test_\S+)/.exec(out)?.[1]
    const admin = /Admin token: {2}(adm_\S+)/.exec(out)?.[1]
    expect(key).toBeDefined()
    expect(admin).toBeDefined()
    expect(out).toContain("Next step: add a phone")
    expect(out).toContain(`API reference: ${running.url}/swagger`)

    const lock = JSON.parse(readFileSync(join(dir, "wagate.lock"), "utf8"))
    expect(lock).toMatchObject({ pid: process.pid, port: running.port })

    const res = await fetch(`${running.url}/v1/account`, { headers: { authorization: `Bearer ${key}` } })
    expect(res.status).toBe(200)
    expect(((await res.json()) as any).data.name).toBe("Default account")
    const accounts = await fetch(`${running.url}/admin/v1/accounts`, { headers: { authorization: `Bearer ${admin}` } })
    expect(accounts.status).toBe(200)

    const code = await running.stop()
    running = null
    expect(code).toBe(0)
    expect(existsSync(join(dir, "wagate.lock"))).toBe(false)
  })

  test("stopping ends the open event streams at once, so the server stops well within the grace and their clients can resume elsewhere", async () => {
    const server = await serve(dir, ["serve", "--port", "0", "--host", "127.0.0.1"])
    running = server
    const key = /Sandbox key: {2}(sk_test_\S+)/.exec(server.stdout())![1]!
    const stream = await openStream(server.url, "/v1/events", { authorization: `Bearer ${key}` })
    expect(await stream.next()).toEqual({ comment: "connected" })
    const started = Date.now()
    const stopped = server.stop()
    // The stream ends (no frame, no error) rather than being cut when the grace runs out.
    expect(await stream.next()).toBeNull()
    expect(await stopped).toBe(0)
    running = null
    expect(Date.now() - started).toBeLessThan(SHUTDOWN_GRACE_MS)
  })

  test("`wagate --port N` means `wagate serve --port N`; a second start prints no secrets", async () => {
    const first = await serve(dir, ["--port", "0", "--host", "127.0.0.1"])
    expect(first.stdout()).toContain("Sandbox key:")
    expect(await first.stop()).toBe(0)

    running = await serve(dir, ["--host", "127.0.0.1", "--port", "0"])
    expect(await running.stop()).toBe(0)
    const out = running.stdout()
    running = null
    expect(out).toContain("listening on http://127.0.0.1:")
    expect(out).not.toContain("First run")
    expect(out).not.toContain("sk_test_")
    expect(out).not.toContain("adm_")
  })

  test("an invalid setting exits 1 before taking the lock", async () => {
    let stderr = ""
    const code = await runCli(
      ["serve", "--port", "70000"],
      { env: { WAGATE_DATA_DIR: dir }, stdout: () => {}, stderr: (t) => void (stderr += t), isTty: false },
      new Promise(() => {}),
    )
    expect(code).toBe(1)
    expect(stderr).toBe("error: --port must be between 0 and 65535, got 70000\n")
    expect(existsSync(join(dir, "wagate.lock"))).toBe(false)
  })
})
