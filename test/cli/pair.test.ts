import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { join } from "node:path"
import { createApp } from "../../src/app"
import { runCli } from "../../src/cli/index"
import { loadConfig } from "../../src/config"
import { createServices, type Services } from "../../src/deps"
import { createAccount } from "../../src/domain/accounts"
import { PAIRING_MAX_FAILED_CONNECTS } from "../../src/domain/pairing-attempts"
import { addPhone } from "../../src/domain/phones"
import { acquireLock, LOCK_FILE } from "../../src/lib/lockfile"
import { silentLogger } from "../../src/lib/logger"
import { DATABASE_FILE } from "../../src/store/sqlite/db"
import type { PhoneRow } from "../../src/store/phones"
import { FakeGateway } from "../fakes/fake-gateway"
import { TestClock } from "../helpers/test-clock"
import { waitUntil } from "../helpers/webhook-receiver"
import { makeDataDir, NEVER, removeDataDir } from "./run-cli"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * API-DECISIONS §12: `wagate phones pair|logout|remove` talk to the running server that owns the
 * data directory (found through the lock file, authenticated with its local token), because only
 * it holds the WhatsApp sockets. The server here is the real app over HTTP on a loopback port,
 * with the fake gateway; the lock names a live process that is not this one (a `sleep`).
 */

const LOCAL_TOKEN = "loc_pairtestlocaltoken0123456789abcdefghij"

let dir: string
let gateway: FakeGateway
let services: Services
let server: ReturnType<typeof Bun.serve>
let owner: ReturnType<typeof Bun.spawn>
let lock: { release(): void }
let phone: PhoneRow

beforeEach(async () => {
  dir = makeDataDir()
  gateway = new FakeGateway()
  services = await createServices(loadConfig({ WAGATE_DATA_DIR: dir }), {
    clock: new TestClock(Date.now()),
    logger: silentLogger,
    databasePath: join(dir, DATABASE_FILE),
    gateway,
    random: () => 0.5,
  })
  services.localAdminToken = LOCAL_TOKEN
  await services.start()
  const app = createApp(services)
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 0, fetch: (req) => app.handle(req) })
  const account = await createAccount(services.ctx, "Acme", "ops@acme.example")
  phone = await addPhone(services.ctx, account.id, "+14155550123")
  owner = Bun.spawn(["sleep", "60"])
  lock = acquireLock(join(dir, LOCK_FILE), { pid: owner.pid, port: server.port ?? null, startedAt: new Date().toISOString(), localToken: LOCAL_TOKEN })
}, SLOW_HOOK_TIMEOUT_MS)
afterEach(async () => {
  lock.release()
  owner.kill()
  await owner.exited
  await server.stop(true)
  await services.stop()
  removeDataDir(dir)
}, SLOW_HOOK_TIMEOUT_MS)

/** Runs a CLI command in-process, with its output readable while it runs. */
function run(argv: string[], stopSignal: Promise<string> = NEVER) {
  const out = { stdout: "", stderr: "" }
  const done = runCli(
    argv,
    { env: { WAGATE_DATA_DIR: dir }, stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t), isTty: false },
    stopSignal,
  )
  return { out, done }
}

const sessionsOf = () => gateway.sessions.get(phone.id) ?? []

describe("wagate phones pair through the running server", () => {
  test("prints the QR drawn with block characters, then exits 0 once the phone is connected", async () => {
    const { out, done } = run(["phones", "pair", phone.phoneNumber])
    await waitUntil(() => sessionsOf().length === 1, 5_000, "the server to open a pairing socket")
    const session = sessionsOf()[0]!
    expect(session.connects).toEqual([{ method: "qr" }])
    session.showQr("2@cli-pairing-qr,noise,identity,adv")
    await waitUntil(() => out.stdout.includes("Linked devices"), 5_000, "the QR on stdout")
    expect(out.stdout).toContain("A wagate server (pid")
    expect(out.stdout).toContain(`Scan this with WhatsApp on ${phone.phoneNumber}`)
    const qrLines = out.stdout.split("\n").filter((l) => /^[▀▄█ ]+$/.test(l) && l.trim() !== "")
    expect(qrLines.length).toBeGreaterThan(10)

    session.open(phone.phoneNumber)
    expect(await done).toBe(0)
    expect(out.stdout).toEndWith(`Paired: ${phone.phoneNumber} is connected and the server keeps it online.\n`)
    expect(out.stderr).toBe("")
    expect(services.sessions.sessionOf(phone.id)).toBe(session)
  })

  test("--code prints the pairing code and exits 0 once connected", async () => {
    const { out, done } = run(["phones", "pair", phone.id, "--code"])
    await waitUntil(() => sessionsOf().length === 1, 5_000, "the server to open a pairing socket")
    const session = sessionsOf()[0]!
    expect(session.connects).toEqual([{ method: "code", phoneNumber: phone.phoneNumber }])
    session.showPairingCode("K7QP2M4X")
    await waitUntil(() => out.stdout.includes("K7QP2M4X"), 5_000, "the code on stdout")
    expect(out.stdout).toContain("Link with phone number instead")
    expect(out.stdout).toContain("\n  K7QP2M4X\n")
    session.open(phone.phoneNumber)
    expect(await done).toBe(0)
    expect(out.stdout).toContain("is connected")
  })

  test("a pairing that expires exits 1 saying so", async () => {
    const { out, done } = run(["phones", "pair", phone.phoneNumber])
    await waitUntil(() => sessionsOf().length === 1, 5_000, "the server to open a pairing socket")
    sessionsOf()[0]!.showQr()
    await waitUntil(() => out.stdout.includes("Linked devices"), 5_000, "the QR on stdout")
    sessionsOf()[0]!.drop("pairing_expired")
    expect(await done).toBe(1)
    expect(out.stderr).toBe(
      "error: pairing stopped (pairing_expired): The QR code or pairing code expired without being used: start the pairing again and complete it on the phone within a minute.\n",
    )
  })

  test("each failed attempt is printed as it happens, and a pairing that gives up exits 1 with the reason", async () => {
    const { out, done } = run(["phones", "pair", phone.phoneNumber])
    await waitUntil(() => sessionsOf().length === 1, 5_000, "the server to open a pairing socket")
    const refused = { code: "connection_refused", host: "web.whatsapp.com" } as const
    for (let attempt = 1; attempt < PAIRING_MAX_FAILED_CONNECTS; attempt++) {
      sessionsOf().at(-1)!.drop("connection_lost", refused)
      await waitUntil(() => out.stderr.split("\n").length > attempt, 5_000, `failed attempt ${attempt} on stderr`)
      ;(services.ctx.clock as TestClock).advance(60_000)
      await waitUntil(() => sessionsOf().length === attempt + 1, 5_000, "the next attempt")
    }
    sessionsOf().at(-1)!.drop("connection_lost", { code: "dns_failed", host: "web.whatsapp.com" })
    expect(await done).toBe(1)
    const lines = out.stderr.trimEnd().split("\n")
    expect(lines).toHaveLength(PAIRING_MAX_FAILED_CONNECTS)
    expect(lines[0]).toBe(
      "Attempt failed (connection_refused): web.whatsapp.com refused the connection: check the firewall or proxy between this host and WhatsApp, and WAGATE_WA_WS_URL. Trying again.",
    )
    expect(lines.at(-1)).toBe("error: pairing stopped (dns_failed): Could not resolve web.whatsapp.com: check DNS on this host.")
  })

  test("interrupted (Ctrl-C), it says the server keeps the pairing going and how to stop it; that command stops it", async () => {
    let interrupt!: (signal: string) => void
    const { out, done } = run(["phones", "pair", phone.phoneNumber], new Promise<string>((resolve) => (interrupt = resolve)))
    await waitUntil(() => sessionsOf().length === 1, 5_000, "the server to open a pairing socket")
    sessionsOf()[0]!.showQr()
    await waitUntil(() => out.stdout.includes("Linked devices"), 5_000, "the QR on stdout")
    interrupt("SIGINT")
    expect(await done).toBe(1)
    const stop = `wagate phones disconnect ${phone.phoneNumber} --data ${dir}`
    expect(out.stderr).toBe(
      `Stopped watching. The server (pid ${owner.pid}) keeps pairing ${phone.phoneNumber} until it is paired or gives up; to stop it now: ${stop}\n`,
    )
    expect((await services.sessions.pairingState(phone.id)).connectionStatus).toBe("pairing")

    const stopped = run(stop.split(" ").slice(1))
    expect(await stopped.done).toBe(0)
    expect(stopped.out.stdout).toBe(`Disconnected ${phone.phoneNumber}: it is unpaired.\n`)
    expect((await services.sessions.pairingState(phone.id)).connectionStatus).toBe("unpaired")
    expect((await services.sessions.pairingState(phone.id)).qr).toBeNull()
    expect(sessionsOf()[0]!.closed).toBe(true)
  })

  test("phones logout goes through the server: the device is unlinked and the credentials wiped", async () => {
    await services.sessions.connect(phone.id, "qr")
    const session = sessionsOf()[0]!
    session.open(phone.phoneNumber)
    await waitUntil(() => services.sessions.sessionOf(phone.id) !== null, 5_000, "the phone to connect")
    const { out, done } = run(["phones", "logout", phone.phoneNumber])
    expect(await done).toBe(0)
    expect(out.stdout).toContain(`Logged out ${phone.phoneNumber}`)
    expect(session.loggedOut).toBe(true)
    expect(await gateway.hasCredentials(phone.id)).toBe(false)
    expect((await services.sessions.pairingState(phone.id)).connectionStatus).toBe("logged_out")
  })

  test("phones remove goes through the server: unlinked first, then removed", async () => {
    await services.sessions.connect(phone.id, "qr")
    const session = sessionsOf()[0]!
    session.open(phone.phoneNumber)
    await waitUntil(() => services.sessions.sessionOf(phone.id) !== null, 5_000, "the phone to connect")
    const { out, done } = run(["phones", "remove", phone.id])
    expect(await done).toBe(0)
    expect(out.stdout).toContain(`Removed phone ${phone.id}`)
    expect(session.loggedOut).toBe(true)
    expect(await gateway.hasCredentials(phone.id)).toBe(false)
    await expect(services.sessions.pairingState(phone.id)).rejects.toThrow()
  })

  test("the server's refusal is reported: an unknown phone is an error before anything is asked", async () => {
    const { out, done } = run(["phones", "pair", "+19995550000"])
    expect(await done).toBe(1)
    expect(out.stderr).toContain("+19995550000")
    expect(sessionsOf()).toEqual([])
  })
})
