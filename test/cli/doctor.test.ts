import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { Database } from "bun:sqlite"
import { writeFileSync } from "node:fs"
import { createServer, type AddressInfo, type Socket } from "node:net"
import { join } from "node:path"
import type { DoctorNet } from "../../src/lib/net-probes"
import { runCli } from "../../src/cli/index"
import { systemClock, type Clock } from "../../src/lib/clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { TestCa } from "../wa-sim/test-ca"
import { standInNet, StandInWaHost, notFound, WA_HOST } from "./doctor-host"
import { cli, makeDataDir, NEVER, printedAccountId, printedPhoneId, removeDataDir, type CliResult } from "./run-cli"

// Generates certificates with openssl in beforeAll: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * `wagate doctor` in-process, against WhatsApp's host played on 127.0.0.1: the resolver is
 * substituted (web.whatsapp.com → 127.0.0.1), the TLS server's certificate comes from a CA made
 * for this run, and the version lookup reads /sw.js from the same server.
 */

let ca: TestCa
let otherCa: TestCa
let host: StandInWaHost
/** The same host with a certificate from a CA the doctor does not trust (an intercepting proxy). */
let untrustedHost: StandInWaHost
let dir: string

beforeAll(async () => {
  ;[ca, otherCa] = await Promise.all([TestCa.create(), TestCa.create()])
  host = new StandInWaHost(await ca.issue([WA_HOST]))
  untrustedHost = new StandInWaHost(await otherCa.issue([WA_HOST]))
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(async () => {
  await Promise.all([host?.stop(), untrustedHost?.stop()])
  await Promise.all([ca?.dispose(), otherCa?.dispose()])
})

beforeEach(() => {
  dir = makeDataDir()
  host.swJs = { kind: "revision", revision: 1_029_384_756 }
  host.requests.length = 0
  untrustedHost.requests.length = 0
})
afterEach(() => removeDataDir(dir))

/** Runs `wagate doctor <argv>` in-process with the WhatsApp socket on `target`'s port. */
async function doctor(argv: string[], options: { net?: DoctorNet; target?: StandInWaHost; clock?: Clock } = {}): Promise<CliResult> {
  const target = options.target ?? host
  let stdout = ""
  let stderr = ""
  const code = await runCli(
    ["doctor", ...argv],
    {
      env: { WAGATE_DATA_DIR: dir, WAGATE_WA_WS_URL: `wss://${WA_HOST}:${target.port}/ws/chat` },
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      isTty: false,
      clock: options.clock,
      doctorNet: options.net ?? standInNet(target, ca.caPem),
    },
    NEVER,
  )
  return { code, stdout, stderr }
}

/** The report line of check `name` (the first one), and the action line under it when there is one. */
function line(out: string, name: string): { line: string; action: string | null } {
  const lines = out.split("\n")
  const at = lines.findIndex((l) => new RegExp(`^  (ok  |FAIL|skip)  ${name} `).test(l))
  if (at === -1) throw new Error(`no ${name} line in:\n${out}`)
  const next = lines[at + 1] ?? ""
  return { line: lines[at]!, action: /^ +→ /.test(next) ? next.trim().slice(2) : null }
}

/** Adds an account and one phone and sets its stored state; returns the phone id. */
async function phoneWith(number: string, state: { status: string; errorCode?: string; errorMessage?: string }): Promise<string> {
  const accounts = await cli(dir, ["accounts", "list", "--json"])
  const existing = JSON.parse(accounts.stdout) as { id: string }[]
  const accountId = existing[0]?.id ?? printedAccountId((await cli(dir, ["accounts", "create", "--name", "Acme", "--email", "ops@acme.test"])).stdout)
  const phoneId = printedPhoneId((await cli(dir, ["phones", "add", number, "--account", accountId])).stdout)
  const db = new Database(join(dir, "wagate.db"))
  db.run(
    `UPDATE phones SET connection_status = ?, last_connected_at_ms = ?, last_error_code = ?, last_error_message = ?, last_error_at_ms = ? WHERE id = ?`,
    [state.status, Date.UTC(2026, 10, 20), state.errorCode ?? null, state.errorMessage ?? null, state.errorCode ? Date.UTC(2026, 10, 24, 18, 1, 2) : null, phoneId],
  )
  db.close()
  return phoneId
}

describe("wagate doctor", () => {
  test("all green: DNS, TLS, clock, version lookup and a connected phone pass, exit 0", async () => {
    await phoneWith("+14155550100", { status: "connected" })
    const res = await doctor([])
    expect(res.stderr).toBe("")
    expect(res.code).toBe(0)
    expect(line(res.stdout, "dns").line).toContain(`ok    dns      ${WA_HOST} resolves to 127.0.0.1`)
    expect(line(res.stdout, "tls").line).toContain(`${WA_HOST}:${host.port} (127.0.0.1) presented a trusted certificate for ${WA_HOST}`)
    expect(line(res.stdout, "clock").line).toMatch(new RegExp(`^  ok    clock    this host's clock is \\d+\\.\\d s (behind|ahead of) ${WA_HOST}'s \\(judged by ${WA_HOST}'s HTTPS Date header`))
    expect(line(res.stdout, "version").line).toContain("ok    version  WhatsApp Web 2.3000.1029384756, looked up at")
    expect(line(res.stdout, "phone").line).toContain("ok    phone    +14155550100 (ph_")
    expect(res.stdout).not.toContain("→")
    expect(res.stdout).toEndWith("No check failed (6 run).\n")
    // The clock was judged over the TLS connection, and the lookup read /sw.js.
    expect(host.requests).toContain("GET /")
    expect(host.requests).toContain("GET /sw.js")
  })

  test("sandbox only: a never-paired phone whose account has only test keys passes and says test keys need no pairing; a live key makes it fail", async () => {
    const phoneId = await phoneWith("+14155550120", { status: "unpaired" })
    expect((await cli(dir, ["keys", "create", "--env", "test"])).code).toBe(0)
    const sandbox = await doctor([])
    expect(sandbox.code).toBe(0)
    const ok = line(sandbox.stdout, "phone")
    expect(ok.line).toBe(
      `  ok    phone    +14155550120 (${phoneId}) is unpaired, which is fine for test keys: they send from it without pairing, and its account has no live key; pair it with \`wagate phones pair +14155550120 --data ${dir}\` before a live key sends from it`,
    )
    expect(ok.action).toBeNull()
    expect(sandbox.stdout).toEndWith("No check failed (6 run).\n")

    expect((await cli(dir, ["keys", "create", "--env", "live"])).code).toBe(0)
    const live = await doctor([])
    expect(live.code).toBe(1)
    expect(line(live.stdout, "phone").line).toBe(`  FAIL  phone    +14155550120 (${phoneId}) is unpaired`)
  })

  test("a clock ten minutes ahead fails the clock check with what to do, exit 1", async () => {
    const real = systemClock()
    const ahead: Clock = { nowMs: () => real.nowMs() + 10 * 60_000, setTimer: real.setTimer }
    const res = await doctor([], { clock: ahead })
    expect(res.code).toBe(1)
    const clock = line(res.stdout, "clock")
    expect(clock.line).toMatch(new RegExp(`FAIL  clock    this host's clock is 10 min ahead of ${WA_HOST}'s`))
    expect(clock.action).toBe("Turn on time synchronisation (`timedatectl set-ntp true`, or chrony or ntpd) and run the doctor again.")
    expect(line(res.stdout, "tls").line).toStartWith("  ok  ")
  })

  test("a name that does not resolve fails DNS, skips TLS and the clock, exit 1", async () => {
    const res = await doctor([], { net: standInNet(host, ca.caPem, { resolveHost: async (name) => Promise.reject(notFound(name)) }) })
    expect(res.code).toBe(1)
    const dns = line(res.stdout, "dns")
    expect(dns.line).toBe(`  FAIL  dns      ${WA_HOST} does not resolve (getaddrinfo ENOTFOUND ${WA_HOST})`)
    expect(dns.action).toBe(`Fix DNS on this host until \`getent hosts ${WA_HOST}\` prints an address (see /etc/resolv.conf).`)
    expect(line(res.stdout, "tls").line).toBe(`  skip  tls      not tried: ${WA_HOST} did not resolve`)
    expect(line(res.stdout, "clock").line).toStartWith("  skip  clock")
    expect(host.requests.filter((r) => r === "GET /").length).toBe(0)
  })

  test("a certificate from an untrusted CA fails TLS with what to do, exit 1", async () => {
    const res = await doctor([], { target: untrustedHost, net: standInNet(untrustedHost, ca.caPem, { versionLookup: null }) })
    expect(res.code).toBe(1)
    const tls = line(res.stdout, "tls")
    expect(tls.line).toContain(`FAIL  tls      ${WA_HOST}:${untrustedHost.port} (127.0.0.1) refused by the certificate check (`)
    expect(tls.action).toBe(
      "Check that no proxy intercepts HTTPS here (else give wagate its CA with NODE_EXTRA_CA_CERTS=/path/ca.pem) and that the system clock is right.",
    )
    // The clock is still judged, by a Date read without trusting the certificate, and says so.
    expect(line(res.stdout, "clock").line).toContain(`ok    clock    this host's clock is`)
    expect(line(res.stdout, "clock").line).toContain(`judged by ${WA_HOST}'s HTTPS Date header over a connection whose certificate was not trusted`)
    expect(untrustedHost.requests).toEqual(["GET /"])
  })

  test.each([
    ["refuses the connection", true],
    ["closes the connection before TLS", false],
  ])("a port that %s fails TLS with the firewall sentence, exit 1", async (_what, closed) => {
    // Accepts each connection and drops it at once, without a TLS word; closed, nothing listens.
    const server = createServer((socket) => socket.destroy())
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    if (closed) await new Promise((resolve) => server.close(resolve))
    try {
      const res = await doctor([], { target: { port } as StandInWaHost, net: standInNet(host, ca.caPem, { versionLookup: null }) })
      expect(res.code).toBe(1)
      const tls = line(res.stdout, "tls")
      expect(tls.line).toContain(`FAIL  tls      ${WA_HOST}:${port} (127.0.0.1) could not be reached (`)
      expect(tls.action).toBe(`Allow outgoing TCP to ${WA_HOST} port ${port} in the firewall or proxy between this host and the internet.`)
    } finally {
      if (!closed) await new Promise((resolve) => server.close(resolve))
    }
  })

  test("a host that accepts TCP and never answers TLS fails within the connect timeout instead of hanging", async () => {
    const held: Socket[] = []
    const server = createServer((socket) => void held.push(socket))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    try {
      const res = await doctor(["--wa-connect-timeout-ms", "1000"], { target: { port } as StandInWaHost, net: standInNet(host, ca.caPem, { versionLookup: null }) })
      expect(res.code).toBe(1)
      expect(line(res.stdout, "tls").line).toContain(`FAIL  tls      ${WA_HOST}:${port} (127.0.0.1) could not be reached (ETIMEDOUT: no TLS handshake within 1000 ms)`)
    } finally {
      for (const socket of held) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  test("a version lookup that fails names the fallback version and what to do, exit 1", async () => {
    host.swJs = { kind: "status", status: 503 }
    const res = await doctor([])
    expect(res.code).toBe(1)
    const version = line(res.stdout, "version")
    expect(version.line).toContain(`FAIL  version  the lookup at https://127.0.0.1:${host.port}/sw.js failed (Failed to fetch sw.js: HTTP 503)`)
    expect(version.line).toContain("connects would announce Baileys' built-in 2.3000.1000000001, which WhatsApp may refuse as outdated")
    expect(version.action).toBe(
      `Let this host reach https://127.0.0.1:${host.port}/sw.js, or set WAGATE_WA_VERSION to the version web.whatsapp.com shows in a browser.`,
    )
    for (const name of ["dns", "tls", "clock"]) expect(line(res.stdout, name).line).toStartWith("  ok  ")
  })

  test("a configured version is not looked up", async () => {
    host.swJs = { kind: "status", status: 503 }
    const res = await doctor(["--wa-version", "2.3000.1012345678"])
    expect(line(res.stdout, "version").line).toBe("  ok    version  WAGATE_WA_VERSION is 2.3000.1012345678: connects announce it, nothing is looked up")
    expect(host.requests).not.toContain("GET /sw.js")
  })

  test("a logged-out phone shows its last error escaped and the command that pairs it, exit 1", async () => {
    await phoneWith("+14155550100", { status: "connected" })
    const phoneId = await phoneWith("+14155550111", {
      status: "logged_out",
      errorCode: "logged_out",
      errorMessage: "The device was unlinked\x1b[31m on the phone\npair it again.",
    })
    const res = await doctor(["+14155550111"])
    expect(res.code).toBe(1)
    const phone = line(res.stdout, "phone")
    expect(phone.line).toBe(
      `  FAIL  phone    +14155550111 (${phoneId}) is logged_out; last error logged_out at 2026-11-24T18:01:02.000Z: The device was unlinked\\x1b[31m on the phone\\npair it again.`,
    )
    expect(phone.action).toBe(`Pair it with \`wagate phones pair +14155550111 --data ${dir}\` and scan the QR code with WhatsApp on +14155550111.`)
    expect(res.stdout).not.toContain("\x1b")
    // Only the phone asked about.
    expect(res.stdout).not.toContain("+14155550100")
  })

  test("a pairing stopped by WhatsApp's passkey gate names the passkey and says to try later, not to pair again at once, exit 1", async () => {
    const phoneId = await phoneWith("+14155550133", { status: "unpaired", errorCode: "passkey_required", errorMessage: "WhatsApp asked for a passkey check on the phone to link this device." })
    const res = await doctor(["+14155550133"])
    expect(res.code).toBe(1)
    const phone = line(res.stdout, "phone")
    expect(phone.line).toBe(`  FAIL  phone    +14155550133 (${phoneId}) is unpaired; last error passkey_required at 2026-11-24T18:01:02.000Z: WhatsApp asked for a passkey check on the phone to link this device.`)
    expect(phone.action).toBe(
      `WhatsApp asks for a passkey to link a device to +14155550133, which wagate cannot give: cancel the prompt on the phone and try \`wagate phones pair +14155550133 --data ${dir}\` again later; a pairing code meets the same check (docs/live-whatsapp.md § "Passkey-gated linking").`,
    )
  })

  test("with no phone named, every phone is checked", async () => {
    await phoneWith("+14155550100", { status: "connected" })
    await phoneWith("+14155550122", { status: "disconnected", errorCode: "outdated_version", errorMessage: "WhatsApp refused client version 2.3000.1: set WAGATE_WA_VERSION=auto or a current version." })
    const res = await doctor(["--json"])
    expect(res.code).toBe(1)
    const phones = (JSON.parse(res.stdout) as { name: string; status: string; detail: string; action: string | null }[]).filter((r) => r.name === "phone")
    expect(phones.map((p) => [p.status, p.detail.slice(0, 12)])).toEqual([
      ["ok", "+14155550100"],
      ["fail", "+14155550122"],
    ])
    expect(phones[1]!.action).toBe(`Do what the last error says, then connect it again with \`wagate phones pair +14155550122 --data ${dir}\`.`)
  })

  test("a phone's announced version and the expiry WhatsApp announced for it are shown; an expiry within a week fails with what to do", async () => {
    const far = await phoneWith("+14155550140", { status: "connected" })
    const near = await phoneWith("+14155550141", { status: "connected" })
    const farMs = Date.now() + 30 * 86_400_000
    const db = new Database(join(dir, "wagate.db"))
    db.run("UPDATE phones SET wa_version = '2.3000.1029384756', client_expires_at_ms = ? WHERE id = ?", [farMs, far])
    db.run("UPDATE phones SET wa_version = '2.3000.1029384756', client_expires_at_ms = ? WHERE id = ?", [Date.now() + 2 * 86_400_000, near])
    db.close()
    const res = await doctor(["--json"])
    const results = JSON.parse(res.stdout) as { name: string; status: string; detail: string; action: string | null }[]
    expect(results.find((r) => r.name === "phone")!.detail).toEndWith(", announcing WhatsApp Web 2.3000.1029384756")
    const expiries = results.filter((r) => r.name === "expiry")
    expect(expiries.map((r) => r.status)).toEqual(["ok", "fail"])
    expect(expiries[0]!.detail).toBe(
      `+14155550140: WhatsApp says this client version (WhatsApp Web 2.3000.1029384756) expires on ${new Date(farMs).toISOString().slice(0, 10)}; upgrade wagate or set WAGATE_WA_VERSION before then`,
    )
    expect(expiries[1]!.action).toBe("Upgrade wagate, or set WAGATE_WA_VERSION to the version web.whatsapp.com shows in a browser, before then.")
    expect(res.code).toBe(1)
  })

  test("names the server that owns the data directory, and says when none runs", async () => {
    const none = await doctor([])
    expect(line(none.stdout, "server").line).toBe(
      `  skip  server   no wagate server runs on this data directory: phones are online only while \`wagate serve --data ${dir}\` runs`,
    )
    // A lock held by a live process other than this one, as `wagate serve` leaves it.
    writeFileSync(join(dir, "wagate.lock"), JSON.stringify({ pid: process.ppid, port: 3123, startedAt: "2026-11-25T00:00:00.000Z" }))
    const running = await doctor([])
    expect(line(running.stdout, "server").line).toBe(
      `  ok    server   wagate serve (pid ${process.ppid}, port 3123) owns this data directory and keeps its phones online`,
    )
  })

  test("a phone that does not exist is an error before any network check", async () => {
    const res = await doctor(["+14155550199"])
    expect(res.code).toBe(1)
    expect(res.stdout).toBe("")
    expect(res.stderr).toContain("+14155550199")
    expect(host.requests).toEqual([])
  })
})
