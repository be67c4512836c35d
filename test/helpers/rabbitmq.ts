import { describe, test } from "bun:test"
import type { Subprocess } from "bun"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Connection } from "rabbitmq-client"

/*
 * A throwaway RabbitMQ node for a test: Debian's rabbitmq-server (3.10 on Erlang 25) started
 * from a temporary directory that holds everything the node writes or reads (its Mnesia and
 * message store, logs, config, enabled plugins: none, Erlang cookie), under a node name of its
 * own, with kernel-chosen free ports on 127.0.0.1 for AMQP, the Erlang distribution and a
 * private epmd. Nothing binds a fixed port (not even epmd's 4369), nothing of the Debian service
 * (/var/lib/rabbitmq, /etc/rabbitmq) is read or needed, and two brokers run side by side.
 *
 * A broker can be stopped and started again on the same ports and data directory, so a test can
 * take the broker away while wagate publishes and bring it back with its durable queues. It is
 * removed (node, epmd, directory) by `remove()`, and in any case when the process exits.
 *
 * Readiness is the AMQP handshake itself: the node opens its AMQP listener at the end of its
 * boot, and a connection that gets through `Connection.Open` proves users and the vhost exist.
 * `.ci/run` installs the package when it is missing.
 */

/** Where Debian's package puts the scripts that run the node and its CLI directly. */
export const RABBITMQ_BIN_DIR = process.env.RABBITMQ_BIN_DIR ?? "/usr/lib/rabbitmq/bin"

/** True when a throwaway broker can be started here. */
export const rabbitmqAvailable = existsSync(join(RABBITMQ_BIN_DIR, "rabbitmq-server")) && Bun.which("epmd") !== null

/** A node boots in 2–5 s on an idle box; a busy 2-core box has been seen to need 15 s. */
const START_TIMEOUT_MS = 60_000
/** A graceful stop (SIGTERM: queues and message stores closed) takes 2–3 s; past this, SIGKILL. */
const STOP_TIMEOUT_MS = 30_000

export interface ThrowawayRabbitmq {
  /** `amqp://guest:guest@127.0.0.1:<port>` (guest is allowed from loopback only, which this is). */
  url: string
  /** The AMQP port; the same across stop and start. */
  port: number
  nodename: string
  /** Starts the node (again) and resolves once it completes an AMQP handshake. */
  start(): Promise<void>
  /** Stops the node and waits for it to exit; its data stays. `kill` skips the graceful shutdown. */
  stop(options?: { kill?: boolean }): Promise<void>
  /** True between a completed `start` and the next `stop`. */
  readonly running: boolean
  /** Runs `rabbitmqctl` against this node; throws with its output unless it exits 0. */
  ctl(...args: string[]): Promise<string>
  /** A user that may log in but has no permission on any vhost: the broker refuses its connection. */
  addUserWithoutPermissions(name: string, password: string): Promise<string>
  /** Stops node and epmd and deletes the directory. */
  remove(): Promise<void>
  /** The tail of the node's log, for failure messages. */
  logTail(): string
}

/**
 * Registers a suite that needs the broker. Without rabbitmq-server it is left out with a one-line
 * notice, except under CI=true, where a missing broker is a failure (CI must run these tests).
 */
export function describeWithRabbitmq(name: string, body: () => void): void {
  if (rabbitmqAvailable) {
    describe(name, body)
    return
  }
  const hint = `${RABBITMQ_BIN_DIR}/rabbitmq-server not found; install it with: apt-get install --no-install-recommends rabbitmq-server`
  if (process.env.CI === "true") {
    describe(name, () => {
      test("rabbitmq-server is installed (required under CI=true)", () => {
        throw new Error(hint)
      })
    })
    return
  }
  console.warn(`[RabbitMQ tests skipped] ${name}: ${hint}`)
}

function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

function distinctFreePorts(): { amqp: number; dist: number; epmd: number } {
  const ports = new Set<number>()
  while (ports.size < 3) ports.add(freePort())
  const [amqp, dist, epmd] = [...ports] as [number, number, number]
  return { amqp, dist, epmd }
}

async function waitForEpmd(port: number, epmd: Subprocess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS
  while (Date.now() < deadline && epmd.exitCode === null) {
    const open = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then(
      (socket) => (socket.end(), true),
      () => false,
    )
    if (open) return
    await Bun.sleep(20)
  }
  throw new Error(`epmd did not listen on 127.0.0.1:${port} (exit code ${epmd.exitCode})`)
}

function killQuietly(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return
  try {
    process.kill(pid, signal)
  } catch {}
}

/** Lays out the directory and returns the environment every process of this node runs with. */
function prepare(dir: string, nodename: string, ports: { amqp: number; dist: number; epmd: number }): Record<string, string> {
  // The cookie file must be private to its owner, or Erlang refuses it.
  writeFileSync(join(dir, ".erlang.cookie"), crypto.randomUUID().replaceAll("-", ""), { mode: 0o400 })
  writeFileSync(join(dir, "enabled_plugins"), "[].\n")
  writeFileSync(join(dir, "rabbitmq-env.conf"), "")
  // A test disk may be nearly full and a shared box's memory is small: neither alarm should
  // block publishers in a test about something else.
  writeFileSync(join(dir, "rabbitmq.conf"), ["disk_free_limit.absolute = 1MB", "vm_memory_high_watermark.absolute = 1GB", "log.console = false", "log.file.level = info", ""].join("\n"))
  mkdirSync(join(dir, "log"), { recursive: true })
  const loopback = "-kernel inet_dist_use_interface {127,0,0,1}"
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LANG: "C.UTF-8",
    // Erlang reads the cookie from $HOME, for the node and for rabbitmqctl alike.
    HOME: dir,
    RABBITMQ_CONF_ENV_FILE: join(dir, "rabbitmq-env.conf"),
    RABBITMQ_CONFIG_FILE: join(dir, "rabbitmq.conf"),
    RABBITMQ_ADVANCED_CONFIG_FILE: join(dir, "advanced.config"),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, "enabled_plugins"),
    RABBITMQ_MNESIA_BASE: join(dir, "mnesia"),
    RABBITMQ_LOG_BASE: join(dir, "log"),
    RABBITMQ_PID_FILE: join(dir, "node.pid"),
    RABBITMQ_NODENAME: nodename,
    RABBITMQ_NODE_IP_ADDRESS: "127.0.0.1",
    RABBITMQ_NODE_PORT: String(ports.amqp),
    RABBITMQ_DIST_PORT: String(ports.dist),
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: loopback,
    // The CLI is an Erlang node too; port 0 lets the kernel choose instead of 35672–35682.
    RABBITMQ_CTL_DIST_PORT_MIN: "0",
    RABBITMQ_CTL_DIST_PORT_MAX: "0",
    RABBITMQ_CTL_ERL_ARGS: loopback,
    ERL_EPMD_PORT: String(ports.epmd),
    ERL_EPMD_ADDRESS: "127.0.0.1",
  }
}

async function waitForHandshake(port: number, node: Subprocess, deadlineMs: number): Promise<void> {
  let lastError: unknown = new Error("no attempt")
  while (Date.now() < deadlineMs) {
    if (node.exitCode !== null) throw new Error(`rabbitmq-server exited with ${node.exitCode}`)
    // rabbitmq-client (the library wagate publishes with) retries by itself; one try at a time here.
    const rabbit = new Connection({ url: `amqp://guest:guest@127.0.0.1:${port}`, connectionTimeout: 5_000, retryLow: 60_000, retryHigh: 60_000 })
    rabbit.on("error", () => {})
    try {
      await rabbit.onConnect(5_000)
      return
    } catch (err) {
      lastError = err
      await Bun.sleep(200)
    } finally {
      rabbit.unsafeDestroy()
    }
  }
  throw new Error(`no AMQP handshake within ${START_TIMEOUT_MS} ms: ${String(lastError)}`)
}

/** A new broker in a new temporary directory, started and ready (pass `start: false` to defer). */
export async function startRabbitmq(options: { start?: boolean } = {}): Promise<ThrowawayRabbitmq> {
  if (!rabbitmqAvailable) throw new Error(`RabbitMQ is not installed (${RABBITMQ_BIN_DIR}/rabbitmq-server, epmd): install Debian's rabbitmq-server, as .ci/run does`)
  const dir = mkdtempSync(join(tmpdir(), "wagate-rmq-"))
  const nodename = `wagate-test-${crypto.randomUUID().slice(0, 8)}@localhost`
  const ports = distinctFreePorts()
  const env = prepare(dir, nodename, ports)
  const epmd = Bun.spawn(["epmd", "-port", String(ports.epmd), "-address", "127.0.0.1"], { env, stdout: "ignore", stderr: "ignore" })
  epmd.unref()
  // Were it not listening when the node starts, Erlang would start a detached epmd of its own
  // on that port, which nothing would stop.
  await waitForEpmd(ports.epmd, epmd)
  let node: Subprocess | null = null
  const vmPid = () => (existsSync(join(dir, "node.pid")) ? Number(readFileSync(join(dir, "node.pid"), "utf8").trim()) || undefined : undefined)
  let running = false
  let removed = false
  // The node is a wrapper script whose child is the Erlang VM (its pid in node.pid): an exit
  // hook cannot wait for a graceful stop, so it kills both.
  const killAll = () => {
    if (node) killQuietly(vmPid(), "SIGKILL")
    killQuietly(node?.pid, "SIGKILL")
    killQuietly(epmd.pid, "SIGKILL")
    rmSync(dir, { recursive: true, force: true })
  }
  process.once("exit", killAll)
  const logTail = () => {
    const file = join(dir, "log", `${nodename}.log`)
    return existsSync(file) ? readFileSync(file, "utf8").slice(-3000) : "(no log yet)"
  }
  const broker: ThrowawayRabbitmq = {
    url: `amqp://guest:guest@127.0.0.1:${ports.amqp}`,
    port: ports.amqp,
    nodename,
    get running() {
      return running
    },
    async start() {
      if (node) throw new Error("the broker is already started")
      const spawned = Bun.spawn([join(RABBITMQ_BIN_DIR, "rabbitmq-server")], { cwd: dir, env, stdout: Bun.file(join(dir, "log", "stdout.txt")), stderr: Bun.file(join(dir, "log", "stderr.txt")) })
      spawned.unref()
      node = spawned
      try {
        await waitForHandshake(ports.amqp, spawned, Date.now() + START_TIMEOUT_MS)
        running = true
      } catch (err) {
        const stderr = existsSync(join(dir, "log", "stderr.txt")) ? readFileSync(join(dir, "log", "stderr.txt"), "utf8").slice(-1000) : ""
        await broker.stop({ kill: true })
        throw new Error(`the throwaway RabbitMQ did not start: ${String(err)}\n${stderr}\n${logTail()}`)
      }
    },
    async stop({ kill = false } = {}) {
      const stopping = node
      if (!stopping) return
      running = false
      const vm = vmPid()
      if (kill) {
        killQuietly(vm, "SIGKILL")
        killQuietly(stopping.pid, "SIGKILL")
      } else {
        // The wrapper turns SIGTERM into the node's graceful shutdown and waits for it.
        killQuietly(stopping.pid, "SIGTERM")
        const timer = setTimeout(() => {
          killQuietly(vm, "SIGKILL")
          killQuietly(stopping.pid, "SIGKILL")
        }, STOP_TIMEOUT_MS)
        await stopping.exited
        clearTimeout(timer)
      }
      await stopping.exited
      // The VM may outlive a killed wrapper by a moment; the next start needs its ports.
      const deadline = Date.now() + STOP_TIMEOUT_MS
      while (vm && Date.now() < deadline && existsSync(`/proc/${vm}`) && !readFileSync(`/proc/${vm}/stat`, "utf8").includes(") Z ")) await Bun.sleep(50)
      rmSync(join(dir, "node.pid"), { force: true })
      node = null
    },
    async ctl(...args: string[]) {
      const proc = Bun.spawn([join(RABBITMQ_BIN_DIR, "rabbitmqctl"), "--node", nodename, ...args], { cwd: dir, env, stdout: "pipe", stderr: "pipe" })
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
      if (code !== 0) throw new Error(`rabbitmqctl ${args.join(" ")} exited with ${code}: ${err.slice(0, 2000)}${out.slice(0, 1000)}`)
      return out
    },
    async addUserWithoutPermissions(name, password) {
      await broker.ctl("add_user", name, password)
      return `amqp://${encodeURIComponent(name)}:${encodeURIComponent(password)}@127.0.0.1:${ports.amqp}`
    },
    async remove() {
      if (removed) return
      removed = true
      await broker.stop()
      epmd.kill("SIGKILL")
      await epmd.exited
      process.removeListener("exit", killAll)
      rmSync(dir, { recursive: true, force: true })
    },
    logTail,
  }
  if (options.start !== false) await broker.start()
  return broker
}
