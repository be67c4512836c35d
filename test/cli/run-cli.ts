import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createApp } from "../../src/app"
import { runCli } from "../../src/cli/index"
import { loadConfig } from "../../src/config"
import { createServices, type Services } from "../../src/deps"
import type { Clock } from "../../src/lib/clock"
import { silentLogger } from "../../src/lib/logger"
import { DATABASE_FILE } from "../../src/store/sqlite/db"
import { TestClock } from "../helpers/test-clock"

/** What one CLI invocation printed and returned. */
export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/** A stop signal that never fires: short commands never look at it. */
export const NEVER = new Promise<string>(() => {})

/** A fresh, empty data directory under the system temp dir. */
export function makeDataDir(): string {
  return mkdtempSync(join(tmpdir(), "wagate-cli-"))
}

export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}

/** Runs `wagate <argv>` in-process against `dir`, capturing its output. */
export async function cli(
  dir: string,
  argv: string[],
  options: { env?: Record<string, string>; clock?: Clock; invocation?: string } = {},
): Promise<CliResult> {
  let stdout = ""
  let stderr = ""
  const code = await runCli(
    argv,
    {
      env: { WAGATE_DATA_DIR: dir, ...options.env },
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      isTty: false,
      clock: options.clock,
      invocation: options.invocation,
    },
    NEVER,
  )
  return { code, stdout, stderr }
}

/** The plaintext key a `keys create` printed. */
export function printedKey(out: string): string {
  const match = /^ {2}(sk_(?:test|live)_[0-9A-Za-z]{43})$/m.exec(out)
  if (!match) throw new Error(`no key in output:\n${out}`)
  return match[1]!
}

/** The id a `keys create` printed. */
export function printedKeyId(out: string): string {
  const match = /^Created (?:test|live) key (key_[0-9a-z]+) /m.exec(out)
  if (!match) throw new Error(`no key id in output:\n${out}`)
  return match[1]!
}

/** The id an `accounts create` printed. */
export function printedAccountId(out: string): string {
  const match = /^Created account (acc_[0-9a-z]+) /m.exec(out)
  if (!match) throw new Error(`no account id in output:\n${out}`)
  return match[1]!
}

/** The id a `phones add` printed. */
export function printedPhoneId(out: string): string {
  const match = /^Added phone (ph_[0-9a-z]+) /m.exec(out)
  if (!match) throw new Error(`no phone id in output:\n${out}`)
  return match[1]!
}

/**
 * What a server on `dir` would run: services on the same database file and the HTTP app,
 * answered in-process through app.handle.
 */
export interface DirServer {
  services: Services
  clock: TestClock
  get(path: string, bearer?: string): Promise<{ status: number; headers: Headers; body: any }>
  close(): Promise<void>
}

export async function serverOn(dir: string, env: Record<string, string> = {}): Promise<DirServer> {
  const clock = new TestClock(Date.now())
  const services = await createServices(loadConfig({ WAGATE_DATA_DIR: dir, ...env }), {
    clock,
    logger: silentLogger,
    databasePath: join(dir, DATABASE_FILE),
  })
  await services.start()
  const app = createApp(services)
  return {
    services,
    clock,
    async get(path, bearer) {
      const headers: Record<string, string> = {}
      if (bearer !== undefined) headers.authorization = `Bearer ${bearer}`
      const res = await app.handle(new Request(`http://localhost${path}`, { headers }))
      const text = await res.text()
      let body: unknown = text
      try {
        body = JSON.parse(text)
      } catch {
        // not JSON
      }
      return { status: res.status, headers: res.headers, body }
    },
    close: () => services.stop(),
  }
}

/** `wagate serve` run in-process, stopped through its stop signal instead of SIGTERM. */
export interface InProcessServer {
  stdout(): string
  stderr(): string
  url: string
  port: number
  stop(): Promise<number>
}

export async function serve(dir: string, argv: string[], invocation?: string, env: Record<string, string> = {}): Promise<InProcessServer> {
  let stdout = ""
  let stderr = ""
  let stop!: (signal: string) => void
  const stopSignal = new Promise<string>((resolve) => (stop = resolve))
  const done = runCli(
    argv,
    { env: { WAGATE_DATA_DIR: dir, ...env }, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), isTty: false, invocation },
    stopSignal,
  )
  const deadline = Date.now() + 10_000
  let match: RegExpExecArray | null = null
  while (!(match = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(stdout))) {
    if (Date.now() > deadline) throw new Error(`serve did not start:\n${stdout}\n${stderr}`)
    await Bun.sleep(5)
  }
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    url: match[1]!,
    port: Number(match[2]),
    stop: async () => {
      stop("SIGTERM")
      return done
    },
  }
}
