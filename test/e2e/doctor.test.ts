import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BUILD_TIMEOUT_MS, ensureBinary } from "../helpers/binary"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { envWithoutWagate } from "../helpers/wagate-process"
import { StandInWaHost } from "../cli/doctor-host"
import { TestCa } from "../wa-sim/test-ca"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * `wagate doctor` as a real process, from source and as the compiled executable, with nothing
 * substituted: the system resolver, the trust store (Bun's roots plus NODE_EXTRA_CA_CERTS, read
 * at start) and Baileys loaded for the built-in version. The WhatsApp socket points at a TLS
 * server on 127.0.0.1 whose certificate comes from a CA made for this run.
 */

const REPO = join(import.meta.dir, "..", "..")

let ca: TestCa
let host: StandInWaHost
let trustFile: string
const dirs: string[] = []

beforeAll(async () => {
  ca = await TestCa.create()
  host = new StandInWaHost(await ca.issue())
  trustFile = await ca.trustFile()
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(async () => {
  await host?.stop()
  await ca?.dispose()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** Runs `<command> doctor --data <fresh dir> --wa-ws-url wss://127.0.0.1:<port>/ws/chat` with `env` added. */
async function runDoctor(command: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const dir = mkdtempSync(join(tmpdir(), "wagate-doctor-"))
  dirs.push(dir)
  const child = Bun.spawn([...command, "doctor", "--data", dir, "--wa-ws-url", `wss://127.0.0.1:${host.port}/ws/chat`], {
    cwd: REPO,
    env: { ...envWithoutWagate(), ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  })
  const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()])
  return { code, out, err }
}

function describeDoctor(label: string, command: () => Promise<string[]>, setupTimeoutMs: number) {
  describe(`wagate doctor ${label}`, () => {
    let argv0: string[]
    beforeAll(async () => {
      argv0 = await command()
    }, setupTimeoutMs)

    test("passes every network check when the host's CA is trusted through NODE_EXTRA_CA_CERTS, exit 0", async () => {
      const res = await runDoctor(argv0, { NODE_EXTRA_CA_CERTS: trustFile })
      expect(res.err).toBe("")
      expect(res.out).toContain("  ok    dns      127.0.0.1 is an address: nothing to resolve")
      expect(res.out).toContain(`  ok    tls      127.0.0.1:${host.port} (127.0.0.1) presented a trusted certificate for 127.0.0.1`)
      expect(res.out).toMatch(/ {2}ok {4}clock {4}this host's clock is \d+\.\d s (behind|ahead of) 127\.0\.0\.1's/)
      // Baileys is loaded for its built-in version, in the executable too.
      expect(res.out).toMatch(/ {2}ok {4}version {2}not looked up: WAGATE_WA_WS_URL is not WhatsApp's, so connects announce Baileys' built-in 2\.3000\.\d+/)
      expect(res.out).toContain("  skip  server   no wagate server runs on this data directory")
      expect(res.out).toContain("  skip  phone    no phone yet: add one with")
      expect(res.code).toBe(0)
    })

    test("fails TLS with what to do when the host's CA is not trusted, exit 1", async () => {
      const res = await runDoctor(argv0, {})
      expect(res.out).toContain(`  FAIL  tls      127.0.0.1:${host.port} (127.0.0.1) refused by the certificate check (`)
      expect(res.out).toContain("→ Check that no proxy intercepts HTTPS here (else give wagate its CA with NODE_EXTRA_CA_CERTS=/path/ca.pem)")
      expect(res.code).toBe(1)
    })
  })
}

describeDoctor("from source", async () => [process.execPath, "src/main.ts"], SLOW_HOOK_TIMEOUT_MS)
describeDoctor("as the compiled executable", async () => [await ensureBinary()], BUILD_TIMEOUT_MS)
