import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/*
 * Helpers for end-to-end tests: `bun src/main.ts serve` as a real process, talked to over
 * 127.0.0.1 only. Nothing here sleeps to make an assertion true: every wait polls a condition
 * with a deadline. Test files register `afterEach(cleanupProcesses)`.
 */

const REPO = join(import.meta.dir, "..", "..")
export const LISTENING = /^wagate (\S+) listening on http:\/\/(\S+):(\d+) \(data: (.+)\)$/m

/** Our environment without any WAGATE_* setting, so only what a test passes configures the child. */
export function envWithoutWagate(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("WAGATE_") && v !== undefined) env[k] = v
  return env
}

/** The environment of a spawned wagate: ours without any WAGATE_* setting, on 127.0.0.1, plus `extra`. */
export function childEnv(extra: Record<string, string>): Record<string, string> {
  return { ...envWithoutWagate(), WAGATE_HOST: "127.0.0.1", ...extra }
}

/** A spawned wagate and what it printed so far. */
export class Proc {
  out = ""
  err = ""
  readonly proc: ReturnType<typeof Bun.spawn<"ignore", "pipe", "pipe">>
  private readonly drained: Promise<unknown>

  /**
   * `bun src/main.ts <args>` by default; `options.command` runs another wagate (the compiled
   * binary) with `options.env` as its whole environment.
   */
  constructor(args: string[], env: Record<string, string>, options: { command?: string[]; cwd?: string } = {}) {
    const command = options.command ?? [process.execPath, "src/main.ts"]
    this.proc = Bun.spawn([...command, ...args], {
      cwd: options.cwd ?? REPO,
      env: options.command ? env : childEnv(env),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    })
    this.drained = Promise.all([
      this.drain(this.proc.stdout, (t) => (this.out += t)),
      this.drain(this.proc.stderr, (t) => (this.err += t)),
    ])
  }

  private async drain(stream: ReadableStream<Uint8Array>, add: (t: string) => void): Promise<void> {
    const decoder = new TextDecoder()
    for await (const chunk of stream) add(decoder.decode(chunk, { stream: true }))
  }

  get pid(): number {
    return this.proc.pid
  }

  get running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null
  }

  /** Waits until stdout (or stderr) matches, failing fast when the process exits first. */
  async waitFor(pattern: RegExp, timeoutMs = 15_000, stream: "out" | "err" = "out"): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const match = pattern.exec(this[stream])
      if (match) return match
      if (!this.running) {
        await this.drained
        const late = pattern.exec(this[stream])
        if (late) return late
        throw new Error(`wagate exited (${this.proc.exitCode}) before printing ${pattern}\nstdout:\n${this.out}\nstderr:\n${this.err}`)
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}\nstdout:\n${this.out}\nstderr:\n${this.err}`)
      await Bun.sleep(10)
    }
  }

  /** Resolves with the exit code and every byte printed; null exit code on timeout. */
  async exited(timeoutMs = 15_000): Promise<number | null> {
    const timeout = Bun.sleep(timeoutMs).then(() => null)
    const code = await Promise.race([this.proc.exited, timeout])
    if (code !== null) await this.drained
    return code
  }

  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    if (this.running) this.proc.kill(signal)
  }
}

/** A started server: its process, base URL and what its first run printed. */
export interface Server {
  p: Proc
  base: string
  host: string
  port: number
}

const spawned: Proc[] = []
const dirs: string[] = []

/**
 * Kills every process the current test spawned and removes its data directories. Each test file
 * that spawns registers it with `afterEach(cleanupProcesses)`: a hook registered here, at module
 * level, would attach only to the first file that imports this module in a `bun test` run.
 */
export async function cleanupProcesses(): Promise<void> {
  for (const p of spawned.splice(0)) {
    p.kill("SIGKILL")
    await p.proc.exited
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
}

export function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), "wagate-e2e-"))
  dirs.push(d)
  return d
}

export function spawn(args: string[], env: Record<string, string> = {}): Proc {
  const p = new Proc(args, env)
  spawned.push(p)
  return p
}

export async function start(dir: string, env: Record<string, string> = {}, args: string[] = ["--port", "0"]): Promise<Server> {
  const p = spawn(["serve", "--data", dir, ...args], env)
  const m = await p.waitFor(LISTENING)
  return { p, base: `http://127.0.0.1:${m[3]}`, host: m[2]!, port: Number(m[3]) }
}

export async function stop(server: Server): Promise<number | null> {
  server.p.kill("SIGTERM")
  return server.p.exited(10_000)
}

/** A port free right now on 127.0.0.1. */
export function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() })
  const port = s.port!
  s.stop(true)
  return port
}

export async function call(base: string, method: string, path: string, bearer: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, headers: res.headers, body: (await res.json()) as any }
}

/** The sandbox key a first run printed. */
export const sandboxKeyIn = (out: string) => /^ {2}Sandbox key: {2}(sk_test_[0-9A-Za-z]{43})$/m.exec(out)?.[1]
/** The admin token a first run printed. */
export const adminTokenIn = (out: string) => /^ {2}Admin token: {2}(adm_[0-9A-Za-z]{43})$/m.exec(out)?.[1]
