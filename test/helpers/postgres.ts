import { SQL, type Subprocess } from "bun"
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/*
 * A throwaway PostgreSQL for the test run: `initdb` into a temporary directory, a server on a
 * kernel-chosen free port on 127.0.0.1, started once per `bun test` process on first use and
 * removed when the process exits. Each test file asks for a database of its own
 * (`freshDatabase`), so files never see each other's rows and nothing depends on order.
 *
 * PostgreSQL refuses to run as root, so under root (CI containers) the server runs as the
 * `postgres` user Debian's package creates. The binaries are looked up on PATH, then in Debian's
 * /usr/lib/postgresql/<major>/bin; `.ci/run` installs the package when neither has them.
 */

const START_TIMEOUT_MS = 30_000
const STOP_WAIT_MS = 5_000

interface Server {
  /** Connection URL of the `postgres` maintenance database, as the superuser. */
  adminUrl: string
  port: number
}

let started: Promise<Server> | null = null
let stopStarted: (() => void) | null = null

/**
 * SIGQUIT is PostgreSQL's immediate shutdown: the postmaster takes its backends with it. As root
 * the child is runuser, which does not pass the signal on, so the postmaster (its pid is the first
 * line of postmaster.pid) is signalled itself. Synchronous: it runs in an exit hook.
 */
function stopServer(server: Subprocess, dir: string, data: string): void {
  let pid = 0
  try {
    pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0])
    if (pid > 0) process.kill(pid, "SIGQUIT")
  } catch {}
  try {
    server.kill("SIGQUIT")
  } catch {}
  // A postmaster still shutting down writes into its directory while it is being removed, which
  // left empty `wagate-pg-*` directories behind; so the removal waits (bounded) until it is gone.
  const deadline = Date.now() + STOP_WAIT_MS
  while (pid > 0 && alive(pid) && Date.now() < deadline) Bun.sleepSync(10)
  rmSync(dir, { recursive: true, force: true })
}

/** Whether a process still runs; a zombie (ended, not yet reaped by this process) does not. */
function alive(pid: number): boolean {
  try {
    // The state is the first field after the command name's closing parenthesis, stat(5).
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z"
  } catch {
    return false
  }
}

/** Stops the run's throwaway server, if one started (test/setup.ts, after the last test file). */
export function stopTestPostgres(): void {
  stopStarted?.()
  stopStarted = null
}

/** The directory holding `initdb` and `postgres`, or null when PostgreSQL is not installed. */
export function postgresBinDir(): string | null {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && existsSync(join(dir, "initdb")) && existsSync(join(dir, "postgres"))) return dir
  }
  const debian = "/usr/lib/postgresql"
  if (!existsSync(debian)) return null
  const majors = readdirSync(debian).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a))
  for (const major of majors) {
    const dir = join(debian, major, "bin")
    if (existsSync(join(dir, "initdb"))) return dir
  }
  return null
}

function asServerUser(argv: string[]): string[] {
  return process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--", ...argv] : argv
}

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

async function waitUntilAccepting(url: string, deadlineMs: number): Promise<void> {
  let lastError: unknown
  while (Date.now() < deadlineMs) {
    const sql = new SQL(url, { max: 1, connectionTimeout: 2 })
    try {
      await sql`SELECT 1`
      return
    } catch (err) {
      lastError = err
      await Bun.sleep(50)
    } finally {
      await sql.close().catch(() => {})
    }
  }
  throw new Error(`the throwaway PostgreSQL did not accept connections: ${String(lastError)}`)
}

/** A fresh cluster (`initdb`) in a new temporary directory, owned by the server's user. */
function initCluster(): { bin: string; dir: string; data: string } {
  const bin = postgresBinDir()
  if (!bin) {
    throw new Error("PostgreSQL is not installed (no initdb on PATH or in /usr/lib/postgresql/*/bin): install Debian's postgresql package, as .ci/run does")
  }
  const dir = mkdtempSync(join(tmpdir(), "wagate-pg-"))
  if (process.getuid?.() === 0) chownSync(dir, Number(Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString().trim()), Number(Bun.spawnSync(["id", "-g", "postgres"]).stdout.toString().trim()))
  const data = join(dir, "data")
  const init = Bun.spawnSync(asServerUser([join(bin, "initdb"), "-D", data, "-U", "wagate", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"]), { stdout: "pipe", stderr: "pipe" })
  if (init.exitCode !== 0) throw new Error(`initdb failed: ${init.stderr.toString().slice(0, 2000)}`)
  return { bin, dir, data }
}

/** The server on `port`, its socket in `dir`; listening on 127.0.0.1 too unless `tcp` is false. */
function spawnServer(bin: string, dir: string, data: string, port: number, tcp = true): Subprocess<"ignore", "ignore", "pipe"> {
  // fsync off: a test database need not survive a power loss, and a busy CI disk is slow.
  return Bun.spawn(
    asServerUser([join(bin, "postgres"), "-D", data, "-h", tcp ? "127.0.0.1" : "", "-p", String(port), "-k", dir, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200"]),
    { stdout: "ignore", stderr: "pipe" },
  )
}

async function startServer(): Promise<Server> {
  const { bin, dir, data } = initCluster()
  let lastError: unknown
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort()
    const server = spawnServer(bin, dir, data, port)
    // The server must not keep a finished script (the bench) alive; the exit hook below stops it.
    server.unref()
    const stop = () => stopServer(server, dir, data)
    stopStarted = stop
    // A script's exit; `bun test` ends without it, so test/setup.ts calls stopTestPostgres too.
    process.once("exit", stop)
    const adminUrl = `postgres://wagate@127.0.0.1:${port}/postgres`
    try {
      await Promise.race([
        waitUntilAccepting(adminUrl, Date.now() + START_TIMEOUT_MS),
        server.exited.then(async (code) => {
          throw new Error(`postgres exited with ${code}: ${(await new Response(server.stderr).text()).slice(0, 2000)}`)
        }),
      ])
      return { adminUrl, port }
    } catch (err) {
      lastError = err
      server.kill("SIGQUIT")
      await server.exited
    }
  }
  throw new Error(`the throwaway PostgreSQL did not start: ${String(lastError)}`)
}

/** The run's throwaway server, started on first use. */
export function testPostgres(): Promise<Server> {
  started ??= startServer()
  return started
}

/** A new, empty database on the run's throwaway server; returns its connection URL. */
export async function freshDatabase(): Promise<string> {
  const server = await testPostgres()
  const name = `t_${crypto.randomUUID().replaceAll("-", "")}`
  const admin = new SQL(server.adminUrl, { max: 1 })
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`)
  } finally {
    await admin.close()
  }
  return `postgres://wagate@127.0.0.1:${server.port}/${name}`
}

/** A server of a test's own, which the test starts (and restarts) when it chooses. */
export interface SeparatePostgres {
  /** Fixed before the first start, so a command can be pointed at the server before it exists. */
  port: number
  /** The directory of its Unix socket. */
  socketDir: string
  /** The `postgres` database over TCP, as the superuser `wagate`. */
  url: string
  /** Starts the server and resolves once it accepts sessions; `tcp: false` listens on the socket only. */
  start(options?: { tcp?: boolean }): Promise<void>
  /** Stops the server (a fast shutdown) and waits for it to exit. */
  stop(): Promise<void>
}

/**
 * A second server for a test about a database that is not up yet: `initdb` now, nothing
 * listening until `start`. Removed when the process exits.
 */
export async function separatePostgres(): Promise<SeparatePostgres> {
  const { bin, dir, data } = initCluster()
  const port = await freePort()
  let server: Subprocess<"ignore", "ignore", "pipe"> | null = null
  process.once("exit", () => {
    if (server) stopServer(server, dir, data)
    else rmSync(dir, { recursive: true, force: true })
  })
  return {
    port,
    socketDir: dir,
    url: `postgres://wagate@127.0.0.1:${port}/postgres`,
    async start({ tcp = true } = {}) {
      const running = spawnServer(bin, dir, data, port, tcp)
      running.unref()
      server = running
      // Line 8 of postmaster.pid is the server's state; "ready" once it accepts sessions.
      const deadline = Date.now() + START_TIMEOUT_MS
      while (Date.now() < deadline && running.exitCode === null) {
        const lines = existsSync(join(data, "postmaster.pid")) ? readFileSync(join(data, "postmaster.pid"), "utf8").split("\n") : []
        if (lines[7]?.trim() === "ready") return
        await Bun.sleep(20)
      }
      throw new Error(`the separate PostgreSQL did not start: ${(await new Response(running.stderr).text()).slice(0, 2000)}`)
    },
    async stop() {
      if (!server) return
      const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0])
      process.kill(pid, "SIGINT")
      await server.exited
      server = null
    },
  }
}
