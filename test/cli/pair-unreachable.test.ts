import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { runCli } from "../../src/cli/index"
import { PAIRING_MAX_FAILED_CONNECTS } from "../../src/domain/pairing-attempts"
import { DATABASE_FILE, openDatabase } from "../../src/store/sqlite/db"
import { findPhoneByNumber } from "../../src/store/sqlite/phones"
import { envWithoutWagate } from "../helpers/wagate-process"
import { TestClock } from "../helpers/test-clock"
import { waitUntil } from "../helpers/webhook-receiver"
import { cli, makeDataDir, NEVER, removeDataDir } from "./run-cli"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * docs/live-whatsapp.md: `wagate phones pair` without a server, on a machine that cannot reach
 * WhatsApp. Real Baileys meets a closed local port or a name that does not resolve; each failed
 * attempt is printed as it happens, the pairing gives up after its bounded attempts with a
 * non-zero exit, and the process idles between attempts.
 */

const PHONE = "+14155550123"
/** An explicit version: `auto` must not look anything up from a test. */
const WA_VERSION = "2.3000.1"
let dir: string

beforeEach(async () => {
  dir = makeDataDir()
  expect((await cli(dir, ["accounts", "create", "--name", "Acme", "--email", "ops@acme.example"])).code).toBe(0)
  expect((await cli(dir, ["phones", "add", PHONE])).code).toBe(0)
})
afterEach(() => removeDataDir(dir))

/** A TCP port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/**
 * Runs the in-process pairing with a test clock for wagate's own timers (the backoff between
 * attempts), while Baileys' sockets fail for real; advances the clock after each printed failure.
 */
async function pairAgainst(wsUrl: string, env: Record<string, string> = {}) {
  const clock = new TestClock(Date.now())
  const out = { stdout: "", stderr: "" }
  const done = runCli(
    ["phones", "pair", PHONE],
    {
      env: { WAGATE_DATA_DIR: dir, WAGATE_WA_WS_URL: wsUrl, WAGATE_WA_VERSION: WA_VERSION, WAGATE_LOG_LEVEL: "error", ...env },
      stdout: (t) => void (out.stdout += t),
      stderr: (t) => void (out.stderr += t),
      isTty: false,
      clock,
    },
    NEVER,
  )
  let exitCode: number | null = null
  void done.then((code) => (exitCode = code))
  const attemptsPrinted = () => out.stderr.split("\n").filter((l) => l.startsWith("Attempt failed")).length
  for (let printed = 1; printed < PAIRING_MAX_FAILED_CONNECTS; printed++) {
    await waitUntil(() => attemptsPrinted() >= printed, 10_000, `failed attempt ${printed} on stderr`)
    // The longest backoff of a pairing's attempts is well under a minute.
    clock.advance(60_000)
  }
  await waitUntil(() => exitCode !== null, 10_000, "the pairing to give up")
  return { code: exitCode!, ...out, attemptsPrinted: attemptsPrinted() }
}

function storedPhone() {
  const db = openDatabase(join(dir, DATABASE_FILE))
  try {
    return findPhoneByNumber(db, PHONE)!
  } finally {
    db.close()
  }
}

describe("wagate phones pair with no route to WhatsApp", () => {
  test(`a closed port: one line per failed attempt, then it gives up after ${PAIRING_MAX_FAILED_CONNECTS} with exit 1 and the reason`, async () => {
    const port = await closedPort()
    const result = await pairAgainst(`ws://127.0.0.1:${port}/ws/chat`)
    expect(result.code).toBe(1)
    expect(result.stdout).toBe(`Connecting to WhatsApp as WhatsApp Web ${WA_VERSION}…\n`)
    expect(result.attemptsPrinted).toBe(PAIRING_MAX_FAILED_CONNECTS - 1)
    const reason = `127.0.0.1:${port} refused the connection: check the firewall or proxy between this host and WhatsApp, and WAGATE_WA_WS_URL.`
    expect(result.stderr).toContain(`Attempt failed (connection_refused): ${reason} Trying again.\n`)
    expect(result.stderr).toEndWith(`error: pairing stopped (connection_refused): ${reason}\n`)
    expect(storedPhone()).toMatchObject({ connectionStatus: "unpaired", lastErrorCode: "connection_refused", lastErrorMessage: reason })
  })

  test("an unresolvable host name: dns_failed, naming the host", async () => {
    const result = await pairAgainst("ws://nonexistent.invalid/ws/chat")
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("Attempt failed (dns_failed): Could not resolve nonexistent.invalid: check DNS on this host. Trying again.\n")
    expect(result.stderr).toEndWith("error: pairing stopped (dns_failed): Could not resolve nonexistent.invalid: check DNS on this host.\n")
  })

  test("a server that never answers: handshake_timeout once WAGATE_WA_CONNECT_TIMEOUT_MS has passed, not a hang", async () => {
    const silent = createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
    try {
      const port = (silent.address() as { port: number }).port
      const result = await pairAgainst(`ws://127.0.0.1:${port}/ws/chat`, { WAGATE_WA_CONNECT_TIMEOUT_MS: "1000" })
      expect(result.code).toBe(1)
      expect(result.stderr).toEndWith(
        `error: pairing stopped (handshake_timeout): 127.0.0.1:${port} did not complete the connection in time: check that this host can reach it (firewall, proxy, network).\n`,
      )
    } finally {
      silent.close()
    }
  }, 30_000)
})

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux). */
function cpuTimeMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  // After "pid (comm) ", utime and stime are fields 12 and 13 (0-based), in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10
}

describe("wagate phones pair idles while it waits", () => {
  test("between attempts the process uses well under 20 % of one core, and the first reason is printed within 25 s", async () => {
    const port = await closedPort()
    const child = Bun.spawn([process.execPath, "src/main.ts", "phones", "pair", PHONE], {
      cwd: join(import.meta.dir, "..", ".."),
      env: { ...envWithoutWagate(), WAGATE_DATA_DIR: dir, WAGATE_WA_WS_URL: `ws://127.0.0.1:${port}/ws/chat`, WAGATE_WA_VERSION: WA_VERSION },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    })
    let stderr = ""
    const drained = (async () => {
      for await (const chunk of child.stderr) stderr += new TextDecoder().decode(chunk)
    })()
    try {
      const startedMs = performance.now()
      await waitUntil(() => stderr.includes("Attempt failed (connection_refused)"), 25_000, "the first failed attempt on stderr")
      expect(performance.now() - startedMs).toBeLessThan(25_000)
      // From here on the command only waits for its next attempts (each fails at once).
      const cpuBeforeMs = cpuTimeMs(child.pid)
      const wallBeforeMs = performance.now()
      // Wall time on purpose: what is measured is a real process idling between its attempts.
      await Bun.sleep(3_000)
      const share = (cpuTimeMs(child.pid) - cpuBeforeMs) / (performance.now() - wallBeforeMs)
      expect(share).toBeLessThan(0.2)
      expect(child.exitCode).toBeNull()
    } finally {
      child.kill("SIGTERM")
      await child.exited
      await drained
    }
    expect(stderr).toContain(`Pairing interrupted: ${PHONE} is unpaired.`)
    expect(storedPhone().connectionStatus).toBe("unpaired")
  }, 40_000)
})

describe("wagate phones pair interrupted (Ctrl-C) without a server", () => {
  /** Sets the stored status as an earlier run left it. */
  function storeStatus(status: "unpaired" | "logged_out"): void {
    const db = openDatabase(join(dir, DATABASE_FILE))
    try {
      db.query("UPDATE phones SET connection_status = ? WHERE phone_number = ?").run(status, PHONE)
    } finally {
      db.close()
    }
  }

  test.each(["unpaired", "logged_out"] as const)("a phone that was %s is left as it was, not pairing", async (before) => {
    storeStatus(before)
    // A server that takes the connection and never answers: the attempt stays in `pairing`.
    const silent = createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
    let interrupt!: (signal: string) => void
    const stopSignal = new Promise<string>((resolve) => (interrupt = resolve))
    const out = { stdout: "", stderr: "" }
    try {
      const port = (silent.address() as { port: number }).port
      const done = runCli(
        ["phones", "pair", PHONE],
        {
          env: { WAGATE_DATA_DIR: dir, WAGATE_WA_WS_URL: `ws://127.0.0.1:${port}/ws/chat`, WAGATE_WA_VERSION: WA_VERSION, WAGATE_LOG_LEVEL: "error" },
          stdout: (t) => void (out.stdout += t),
          stderr: (t) => void (out.stderr += t),
          isTty: false,
          clock: new TestClock(Date.now()),
        },
        stopSignal,
      )
      await waitUntil(() => storedPhone().connectionStatus === "pairing", 10_000, "the phone to be pairing")
      interrupt("SIGINT")
      expect(await done).toBe(1)
    } finally {
      silent.close()
    }
    expect(out.stderr).toEndWith(`Pairing interrupted: ${PHONE} is ${before}.\n`)
    expect(storedPhone().connectionStatus).toBe(before)
  })
})
