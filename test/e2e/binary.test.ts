import { afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { Database } from "bun:sqlite"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { VERSION } from "../../src/version"
import { BINARY, BUILD_TIMEOUT_MS, ensureBinary } from "../helpers/binary"
import { verifySignature } from "../helpers/verify-signature"
import { adminTokenIn, call, envWithoutWagate, LISTENING, Proc, sandboxKeyIn } from "../helpers/wagate-process"
import { waitUntil, WebhookReceiver } from "../helpers/webhook-receiver"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * End-to-end tests of the COMPILED executable (`bun run build` → dist/wagate), the artefact an
 * operator runs: first-run output, CLI commands beside a running server, signed webhooks,
 * backups, graceful shutdown, the data-directory lock, and independence from the working
 * directory's .env and bunfig.toml. Everything listens on 127.0.0.1 only. Waits poll a condition
 * with a deadline; nothing sleeps to make an assertion true.
 */

const REPO = join(import.meta.dir, "..", "..")
/** Longest killing this file's processes may take after a test. */
const CLEANUP_TIMEOUT_MS = 30_000

// A build that fails or overruns throws with its output, so every test of this file fails saying
// why; the hook's timeout is longer than the build's own limit, so it never cuts it off unexplained.
beforeAll(async () => {
  await ensureBinary()
}, BUILD_TIMEOUT_MS)

interface BinServer {
  p: Proc
  base: string
  port: number
  dir: string
  key: string
  admin: string
}

const spawned: Proc[] = []
const dirs: string[] = []
let receiver: WebhookReceiver | undefined

afterEach(async () => {
  for (const p of spawned.splice(0)) {
    p.kill("SIGKILL")
    await p.proc.exited
  }
  await receiver?.stop()
  receiver = undefined
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
}, CLEANUP_TIMEOUT_MS)

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "wagate-bin-"))
  dirs.push(d)
  return d
}

function run(args: string[], cwd = REPO): Proc {
  const p = new Proc(args, envWithoutWagate(), { command: [BINARY], cwd })
  spawned.push(p)
  return p
}

/** Runs a short command to completion. */
async function runToEnd(args: string[], cwd = REPO): Promise<{ code: number | null; out: string; err: string }> {
  const p = run(args, cwd)
  const code = await p.exited()
  return { code, out: p.out, err: p.err }
}

/** `dist/wagate serve` on a fresh data directory; resolves once the first-run block is printed. */
async function serve(options: { dir?: string; cwd?: string; args?: string[] } = {}): Promise<BinServer> {
  const dir = options.dir ?? tempDir()
  const p = run(["serve", "--data", dir, "--host", "127.0.0.1", ...(options.args ?? ["--port", "0"])], options.cwd)
  const m = await p.waitFor(LISTENING)
  await p.waitFor(/^API reference: .*\n/m)
  return { p, base: `http://127.0.0.1:${m[3]}`, port: Number(m[3]), dir, key: sandboxKeyIn(p.out)!, admin: adminTokenIn(p.out)! }
}

const PHONE = "+14155550123"

/** Adds the phone with the binary's own CLI, beside the running server. */
async function addPhoneWithCli(server: BinServer): Promise<void> {
  const added = await runToEnd(["phones", "add", PHONE, "--name", "Support", "--data", server.dir])
  expect(added.code).toBe(0)
  expect(added.out).toContain(PHONE)
}

const send = (server: BinServer, to = "+14155550199", content = "Hello") =>
  call(server.base, "POST", "/v1/messages/send", server.key, { fromPhoneId: PHONE, to, content })

/** A raw HTTP/1.1 request on its own TCP connection; resolves with the parsed response. */
interface RawExchange {
  /** Resolves once the server answered `100 Continue`: it has parsed the request head. */
  continued: Promise<void>
  sendBody(): void
  response: Promise<{ status: number; headers: Record<string, string>; body: string }>
}

async function rawPostExpectContinue(port: number, path: string, bearer: string, body: string): Promise<RawExchange> {
  const bytes = Buffer.from(body)
  let buf = Buffer.alloc(0)
  let onData = () => {}
  let closed = false
  let closeError: unknown = null
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_s, chunk) {
        buf = Buffer.concat([buf, chunk])
        onData()
      },
      close(_s, err) {
        closed = true
        closeError = err ?? null
        onData()
      },
      error(_s, err) {
        closed = true
        closeError = err
        onData()
      },
    },
  })
  const waitData = <T>(parse: () => T | null, what: string) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const parsed = parse()
        if (parsed !== null) return resolve(parsed)
        if (closed) reject(new Error(`connection closed before ${what} (${String(closeError)}); got ${JSON.stringify(buf.toString())}`))
      }
      const previous = onData
      onData = () => {
        previous()
        check()
      }
      check()
    })
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${bearer}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${bytes.length}\r\nExpect: 100-continue\r\n\r\n`,
  )
  const continued = waitData(() => (buf.toString().startsWith("HTTP/1.1 100 Continue\r\n\r\n") ? true : null), "100 Continue").then(() => {})
  const response = waitData(() => {
    const text = buf.toString("latin1").replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, "")
    const headEnd = text.indexOf("\r\n\r\n")
    if (headEnd < 0) return null
    const [statusLine, ...headerLines] = text.slice(0, headEnd).split("\r\n")
    const headers: Record<string, string> = {}
    for (const line of headerLines) {
      const i = line.indexOf(":")
      headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim()
    }
    const length = Number(headers["content-length"])
    const rest = Buffer.from(text.slice(headEnd + 4), "latin1")
    if (!Number.isFinite(length) || rest.length < length) return null
    return { status: Number(statusLine!.split(" ")[1]), headers, body: rest.subarray(0, length).toString("utf8") }
  }, "a complete response").finally(() => socket.end())
  return { continued, sendBody: () => void socket.write(bytes), response }
}

/** True when a new TCP connection to the port is refused. */
async function refusesConnections(port: number): Promise<boolean> {
  try {
    const s = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } })
    s.end()
    return false
  } catch {
    return true
  }
}

describe("the compiled dist/wagate", () => {
  test("first run prints the listening line, the sandbox key, the admin token and the next step; /healthz and /readyz answer 200", async () => {
    const server = await serve()
    const m = LISTENING.exec(server.p.out)!
    expect(m[1]).toBe(VERSION)
    expect(m[2]).toBe("127.0.0.1")
    expect(m[4]).toBe(server.dir)
    expect(server.key).toMatch(/^sk_test_[0-9A-Za-z]{43}$/)
    expect(server.admin).toMatch(/^adm_[0-9A-Za-z]{43}$/)
    expect(server.p.out).toContain("First run: wagate set itself up. These secrets are shown only now; store them.")
    expect(server.p.out).toContain("Next step: add a phone (test keys can send from it at once, no pairing needed):")
    // The banner shows the command as it was run: here, the executable's absolute path.
    expect(server.p.out).toContain(`  ${BINARY} phones add +14155550123 --name 'Support' --data ${server.dir}`)
    expect(server.p.out).toContain(`curl -X POST ${server.base}/v1/messages/send -H 'Authorization: Bearer ${server.key}'`)
    // The secrets are printed once on stdout, never logged.
    await server.p.waitFor(/"msg":"server started"/, 15_000, "err")
    expect(server.p.err).not.toContain(server.key)
    expect(server.p.err).not.toContain(server.admin)

    const health = await fetch(`${server.base}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({ status: "ok" })
    const ready = await fetch(`${server.base}/readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({ status: "ready" })

    expect((await call(server.base, "GET", "/v1/account", server.key)).status).toBe(200)
    expect((await call(server.base, "GET", "/admin/v1/accounts", server.admin)).status).toBe(200)
  })

  test("the executable serves the OpenAPI document and its Scalar reference page, the UI bundle embedded, all from its own origin", async () => {
    const server = await serve()
    for (const path of ["/openapi.json", "/swagger/json"]) {
      const doc = await fetch(`${server.base}${path}`)
      expect(doc.status).toBe(200)
      expect(((await doc.json()) as { openapi: string }).openapi).toBe("3.1.0")
    }
    const page = await (await fetch(`${server.base}/swagger`)).text()
    expect(page).toContain('data-url="/swagger/json"')
    expect(page).not.toMatch(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i)
    const assets = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    expect(assets).toEqual(["/swagger/assets/scalar-api-reference.js"])
    const bundle = await fetch(`${server.base}${assets[0]}`)
    expect(bundle.status).toBe(200)
    expect(bundle.headers.get("content-type")).toContain("text/javascript")
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000)
  })

  test("the executable serves the dashboard: sign-in with the admin token, its pages, and its assets embedded, from its own origin", async () => {
    const server = await serve()
    const signIn = await fetch(`${server.base}/dashboard/sign-in`, {
      method: "POST",
      headers: { Origin: server.base },
      body: new URLSearchParams({ token: server.admin }),
      redirect: "manual",
    })
    expect(signIn.status).toBe(303)
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!
    const page = await fetch(`${server.base}/dashboard/phones`, { headers: { cookie } })
    expect(page.status).toBe(200)
    expect(page.headers.get("content-security-policy")).toStartWith("default-src 'self'")
    const html = await page.text()
    const assets = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&"))
    expect(assets.length).toBe(4)
    for (const asset of assets) {
      const res = await fetch(`${server.base}${asset}`)
      expect(res.status).toBe(200)
      // The smallest asset is the favicon, a few hundred bytes of SVG.
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100)
    }
  })

  test("a phone added by `wagate phones add` beside the running server can send a sandbox message at once (201, sent)", async () => {
    const server = await serve()
    const before = await send(server)
    expect(before.status).toBe(404)

    await addPhoneWithCli(server)
    const sent = await send(server)
    expect(sent.status).toBe(201)
    expect(sent.body.success).toBe(true)
    expect(sent.body.data).toMatchObject({ from: PHONE, to: "+14155550199", content: "Hello", status: "sent" })
    expect(sent.body.data.id).toMatch(/^msg_/)

    const read = await call(server.base, "GET", `/v1/messages/${sent.body.data.id}`, server.key)
    expect(read.status).toBe(200)
    expect(read.body.data.id).toBe(sent.body.data.id)
  })

  test("an endpoint added through the admin API receives message.sent, signed with its secret", async () => {
    receiver = new WebhookReceiver()
    const server = await serve()
    await addPhoneWithCli(server)
    const accountId = (await call(server.base, "GET", "/admin/v1/accounts", server.admin)).body.data[0].accountId as string
    const endpoint = await call(server.base, "POST", `/admin/v1/accounts/${accountId}/webhooks`, server.admin, {
      url: receiver.url("/hooks/wagate"),
      environment: "test",
      events: ["message.sent"],
    })
    expect(endpoint.status).toBe(201)
    const secret = endpoint.body.data.secret as string
    expect(typeof secret).toBe("string")

    const sent = await send(server)
    expect(sent.status).toBe(201)
    const [hook] = await receiver.waitFor(1, 10_000)
    const signature = hook!.headers["x-service-signature"]!
    const now = Math.floor(Date.now() / 1000)
    expect(verifySignature(signature, hook!.body, secret, now)).toBe(true)
    expect(verifySignature(signature, hook!.body, `${secret}x`, now)).toBe(false)
    expect(verifySignature(signature, hook!.body.replace(sent.body.data.id, "msg_forged"), secret, now)).toBe(false)
    expect(hook!.headers["x-service-event"]).toBe("message.sent")
    expect(hook!.json).toMatchObject({ event: "message.sent", data: { messageId: sent.body.data.id, from: PHONE, status: "sent" } })
    // The secret never travels in the request itself and is never logged.
    expect(JSON.stringify(hook!.headers)).not.toContain(secret)
    expect(server.p.err).not.toContain(secret)
  })

  test("`wagate backup FILE` beside the running server writes a consistent SQLite file holding the message", async () => {
    const server = await serve()
    await addPhoneWithCli(server)
    const sent = await send(server, "+14155550199", "kept in the backup")
    expect(sent.status).toBe(201)

    const target = join(tempDir(), "backup.db")
    const backup = await runToEnd(["backup", target, "--data", server.dir])
    expect(backup.code).toBe(0)
    expect(backup.out).toContain(`Backed up the database to ${target}.`)
    expect(existsSync(`${target}.partial`)).toBe(false)

    const db = new Database(target, { readonly: true })
    try {
      expect(db.query("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }])
      expect(db.query("PRAGMA foreign_key_check").all()).toEqual([])
      expect(db.query("SELECT id, status, content, from_number AS fromNumber FROM messages").all()).toEqual([
        { id: sent.body.data.id, status: "sent", content: "kept in the backup", fromNumber: PHONE },
      ])
      expect((db.query("SELECT COUNT(*) AS n FROM phones").get() as { n: number }).n).toBe(1)
    } finally {
      db.close()
    }

    // The server is unaffected and keeps writing.
    expect((await send(server, "+14155550198")).status).toBe(201)
    // A second backup to the same file is refused rather than overwriting it.
    const again = await runToEnd(["backup", target, "--data", server.dir])
    expect(again.code).not.toBe(0)
    expect(again.err).toContain("already exists")
  })

  test("SIGTERM answers every in-flight request completely, refuses new connections, exits 0 within 10 s and removes the lock", async () => {
    const server = await serve()
    await addPhoneWithCli(server)
    const lockPath = join(server.dir, "wagate.lock")
    expect(JSON.parse(readFileSync(lockPath, "utf8"))).toMatchObject({ pid: server.p.pid, port: server.port })

    // Slow uploads: each request's head is parsed (the server said 100 Continue), its body not yet sent.
    const count = 8
    const exchanges = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        rawPostExpectContinue(server.port, "/v1/messages/send", server.key, JSON.stringify({ fromPhoneId: PHONE, to: "+14155550199", content: `in flight ${i}` })),
      ),
    )
    await Promise.all(exchanges.map((e) => e.continued))
    // And a burst of complete sends, already answered in part, still running for the rest.
    const burst = Array.from({ length: 10 }, (_, i) => send(server, "+14155550199", `burst ${i}`))
    await Promise.race(burst)

    const startedAt = Date.now()
    server.p.kill("SIGTERM")
    await server.p.waitFor(/"msg":"shutting down","signal":"SIGTERM"/, 5_000, "err")
    // It stops accepting…
    await waitUntil(() => refusesConnections(server.port), 2_000, "new connections to be refused")
    // …but still answers what it had accepted.
    for (const e of exchanges) e.sendBody()
    const responses = await Promise.all(exchanges.map((e) => e.response))
    for (const [i, res] of responses.entries()) {
      expect(res.status).toBe(201)
      const body = JSON.parse(res.body)
      expect(body.data).toMatchObject({ status: "sent", content: `in flight ${i}` })
    }
    const burstResults = await Promise.all(burst)
    for (const res of burstResults) expect(res.status).toBe(201)

    expect(await server.p.exited(10_000)).toBe(0)
    expect(Date.now() - startedAt).toBeLessThan(10_000)
    expect(existsSync(lockPath)).toBe(false)
    expect(server.p.err).not.toContain('"level":"error"')

    // Everything answered 201 is durable.
    const db = new Database(join(server.dir, "wagate.db"), { readonly: true })
    try {
      const ids = [...responses.map((r) => JSON.parse(r.body).data.id), ...burstResults.map((r) => r.body.data.id)]
      const stored = db.query(`SELECT id FROM messages WHERE id IN (${ids.map(() => "?").join(",")})`).all(...ids)
      expect(stored).toHaveLength(count + burst.length)
    } finally {
      db.close()
    }
  })

  test("a second serve on the same data directory is refused with exit 1, naming the running pid", async () => {
    const first = await serve()
    const second = run(["serve", "--data", first.dir, "--port", "0", "--host", "127.0.0.1"])
    expect(await second.exited()).toBe(1)
    expect(second.err).toContain(`Another wagate (pid ${first.p.pid}, port ${first.port}) is already serving this data directory.`)
    expect(second.out).not.toMatch(LISTENING)
    expect(first.p.running).toBe(true)
    expect(JSON.parse(readFileSync(join(first.dir, "wagate.lock"), "utf8")).pid).toBe(first.p.pid)
    expect((await fetch(`${first.base}/healthz`)).status).toBe(200)
  })

  test("a .env and a bunfig.toml in the working directory are ignored", async () => {
    const cwd = tempDir()
    const dotenvAdmin = "dotenv_admin_token_0123456789abcdef"
    writeFileSync(
      join(cwd, ".env"),
      [
        "WAGATE_PORT=1",
        "WAGATE_HOST=0.0.0.0",
        `WAGATE_ADMIN_TOKEN=${dotenvAdmin}`,
        "WAGATE_METRICS_PUBLIC=1",
        "WAGATE_RATE_LIMIT_PER_MINUTE=1",
        "WAGATE_LOG_LEVEL=error",
        "",
      ].join("\n"),
    )
    writeFileSync(join(cwd, "bunfig.toml"), 'preload = ["./preload.ts"]\n')
    writeFileSync(join(cwd, "preload.ts"), 'require("node:fs").writeFileSync(require("node:path").join(process.cwd(), "PRELOADED"), "x")\nconsole.error("PRELOAD RAN")\n')

    // Control: plain bun in this directory does read both files.
    const control = Bun.spawnSync([process.execPath, "-e", "console.log(process.env.WAGATE_PORT)"], { cwd, env: envWithoutWagate(), stdout: "pipe", stderr: "pipe" })
    expect(control.stdout.toString().trim()).toBe("1")
    expect(existsSync(join(cwd, "PRELOADED"))).toBe(true)
    rmSync(join(cwd, "PRELOADED"))

    // An ephemeral port (no test binds a fixed one): the settings below show that .env was not read.
    const server = await serve({ cwd })
    expect(server.port).not.toBe(1)
    expect(LISTENING.exec(server.p.out)![2]).toBe("127.0.0.1")
    // WAGATE_ADMIN_TOKEN was not read: a token was generated, and the .env one is refused.
    expect(server.admin).toMatch(/^adm_/)
    expect((await call(server.base, "GET", "/admin/v1/accounts", dotenvAdmin)).status).toBe(401)
    // WAGATE_METRICS_PUBLIC was not read.
    expect((await fetch(`${server.base}/metrics`)).status).toBe(401)
    // WAGATE_RATE_LIMIT_PER_MINUTE was not read.
    expect((await call(server.base, "GET", "/v1/account", server.key)).headers.get("x-ratelimit-limit")).toBe("100")
    // WAGATE_LOG_LEVEL=error was not read: info lines are logged.
    await server.p.waitFor(/"level":"info","msg":"server started"/, 15_000, "err")
    // The bunfig preload never ran, and nothing was written to the working directory.
    expect(server.p.out + server.p.err).not.toContain("PRELOAD RAN")
    expect(readdirSync(cwd).sort()).toEqual([".env", "bunfig.toml", "preload.ts"])

    const version = await runToEnd(["version"], cwd)
    expect(version.code).toBe(0)
    expect(version.out).toStartWith(`wagate ${VERSION} `)
    expect(existsSync(join(cwd, "PRELOADED"))).toBe(false)
  })

  test("the first-run banner shows the executable as it was typed: ./dist/wagate from the checkout", async () => {
    const data = tempDir()
    const p = new Proc(["serve", "--data", data, "--host", "127.0.0.1", "--port", "0"], envWithoutWagate(), { command: ["./dist/wagate"], cwd: REPO })
    spawned.push(p)
    await p.waitFor(/^API reference: .*\n/m)
    expect(p.out).toContain(`\n  ./dist/wagate phones add +14155550123 --name 'Support' --data ${data}\n`)
  })

  test("help, --help on a subcommand and version answer from the executable without a data directory", async () => {
    const cwd = tempDir()
    const help = await runToEnd(["help"], cwd)
    expect(help.code).toBe(0)
    expect(help.out).toContain("wagate phones pair PHONE_ID|+E164 [--code]")
    const pair = await runToEnd(["phones", "pair", "--help"], cwd)
    expect(pair.code).toBe(0)
    expect(pair.out).toContain("--code")
    const serveHelp = await runToEnd(["serve", "--help"], cwd)
    expect(serveHelp.code).toBe(0)
    expect(serveHelp.out).toContain("[WAGATE_PORT]")
    const version = await runToEnd(["version"], cwd)
    expect(version.out).toStartWith(`wagate ${VERSION} (schema `)
    expect(readdirSync(cwd)).toEqual([])
  })

  test("error envelopes carry their path (401, 404, 400, 405), and authenticated requests log no Elysia Sucrose warning", async () => {
    const server = await serve()
    const raw = async (method: string, path: string, bearer?: string) => {
      const res = await fetch(`${server.base}${path}`, { method, headers: bearer ? { authorization: `Bearer ${bearer}` } : {} })
      return { status: res.status, allow: res.headers.get("allow"), body: (await res.json()) as { path?: string; statusCode: number } }
    }
    for (const [method, path, bearer, status, envelopePath] of [
      ["GET", "/v1/account", undefined, 401, "/v1/account"],
      ["GET", "/admin/v1/accounts", undefined, 401, "/admin/v1/accounts"],
      ["GET", "/nope", undefined, 404, "/nope"],
      ["GET", "/v1/messages?limit=abc", server.key, 400, "/v1/messages"],
      ["GET", "/v1/account?environment=test", server.key, 400, "/v1/account"],
      ["GET", "/v1/messages/msg_missing", server.key, 404, "/v1/messages/msg_missing"],
      ["DELETE", "/v1/messages/send", undefined, 405, "/v1/messages/send"],
      // `send` is not a message id.
      ["GET", "/v1/messages/send", server.key, 405, "/v1/messages/send"],
    ] as const) {
      const res = await raw(method, path, bearer)
      expect({ method, path, status: res.status, envelope: res.body.statusCode, envelopePath: res.body.path }).toEqual({ method, path, status, envelope: status, envelopePath })
    }
    expect((await raw("DELETE", "/v1/messages/send")).allow).toBe("POST")
    expect((await raw("GET", "/v1/messages/send", server.key)).allow).toBe("POST")
    // Every documented operation once, authenticated: Elysia compiles each route's hooks on its
    // first request, and that is when it would warn.
    const documentedPaths = ((await (await fetch(`${server.base}/swagger/json`)).json()) as { paths: Record<string, Record<string, unknown>> }).paths
    let called = 0
    for (const [template, operations] of Object.entries(documentedPaths)) {
      const path = template.replace(/\{[^}]+\}/g, "x_missing")
      for (const method of Object.keys(operations)) {
        const bearer = path.startsWith("/admin/") || path === "/metrics" ? server.admin : server.key
        const res = await fetch(`${server.base}${path}`, { method: method.toUpperCase(), headers: { authorization: `Bearer ${bearer}` } })
        await res.body?.cancel()
        expect({ method, path, status: res.status < 500 }).toEqual({ method, path, status: true })
        called++
      }
    }
    expect(called).toBeGreaterThan(30)
    expect((await send(server)).status).toBe(404)
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200)
    expect(server.p.out + server.p.err).not.toContain("Sucrose")
  })

  test("the data directory is 0700 and the database, its -wal and -shm files and backups are 0600", async () => {
    const server = await serve()
    expect(statSync(server.dir).mode & 0o777).toBe(0o700)
    for (const file of ["wagate.db", "wagate.db-wal", "wagate.db-shm", "wagate.lock"]) {
      expect({ file, mode: statSync(join(server.dir, file)).mode & 0o777 }).toEqual({ file, mode: 0o600 })
    }
    const target = join(tempDir(), "backup.db")
    expect((await runToEnd(["backup", target, "--data", server.dir])).code).toBe(0)
    expect(statSync(target).mode & 0o777).toBe(0o600)
  })

  test("an unusable data directory ends serve with exit 1 and one sentence, not a stack trace", async () => {
    const parent = join(tempDir(), "a-file")
    writeFileSync(parent, "")
    const dir = join(parent, "data")
    const res = await runToEnd(["serve", "--data", dir, "--port", "0", "--host", "127.0.0.1"])
    expect(res.code).toBe(1)
    expect(res.err).toBe(
      `error: cannot create data directory ${dir} (it or a parent is a file, not a directory): remove that file or choose another directory with --data (WAGATE_DATA_DIR)\n`,
    )
    expect(res.out).toBe("")
  })
})
