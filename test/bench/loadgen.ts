import { spawnSync } from "node:child_process"
import { rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** One load measurement. */
export interface LoadResult {
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  requests: number
  errors: number
  generator: "wrk" | "built-in"
}

/**
 * A load to generate: a request template; `{n}` in the body is replaced by a value unique to the
 * request across every run (wrk's Lua random is unseeded, so the prefix comes from here).
 */
export interface LoadSpec {
  url: string
  method: "GET" | "POST"
  headers: Record<string, string>
  body?: string
  connections: number
  durationSeconds: number
}

export function hasWrk(): boolean {
  return spawnSync("sh", ["-c", "command -v wrk"]).status === 0
}

export function hasTaskset(): boolean {
  return spawnSync("sh", ["-c", "command -v taskset"]).status === 0
}

/** Runs the load with wrk when installed (pinned to core 1 when taskset exists), else with the built-in generator. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return hasWrk() ? runWrk(spec) : runBuiltIn(spec)
}

function luaString(s: string): string {
  return JSON.stringify(s)
}

/**
 * Several loads at once, each against its own URL (one per node of a cluster): each in its own
 * wrk process when wrk is installed, else built-in generators side by side in this process.
 */
export async function runLoads(specs: readonly LoadSpec[]): Promise<LoadResult[]> {
  if (!hasWrk()) return Promise.all(specs.map(runBuiltIn))
  return Promise.all(
    specs.map(async (spec) => {
      const { cmd, script } = wrkInvocation(spec)
      try {
        const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "ignore" })
        const out = await new Response(proc.stdout).text()
        await proc.exited
        return { ...parseWrk(out), generator: "wrk" as const }
      } finally {
        rmSync(script, { force: true })
      }
    }),
  )
}

function runWrk(spec: LoadSpec): LoadResult {
  const { cmd, script } = wrkInvocation(spec)
  try {
    const out = spawnSync(cmd[0]!, cmd.slice(1), { encoding: "utf8" }).stdout
    return { ...parseWrk(out), generator: "wrk" }
  } finally {
    rmSync(script, { force: true })
  }
}

/** The wrk command line of a load, and the Lua script it reads (the caller removes it). */
function wrkInvocation(spec: LoadSpec): { cmd: string[]; script: string } {
  const script = join(tmpdir(), `wagate-bench-${process.pid}-${Math.random().toString(36).slice(2)}.lua`)
  const headerLines = Object.entries(spec.headers)
    .map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}`)
    .join("\n")
  const bodyLua = spec.body
    ? `local template = ${luaString(spec.body)}
local counter = 0
local prefix = ${luaString(`${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`)}
request = function()
  counter = counter + 1
  local body = string.gsub(template, "{n}", prefix .. "-" .. counter)
  return wrk.format(nil, nil, nil, body)
end`
    : ""
  writeFileSync(script, `wrk.method = ${luaString(spec.method)}\n${headerLines}\n${bodyLua}\n`)
  const args = ["-t1", `-c${spec.connections}`, `-d${spec.durationSeconds}s`, "--latency", "--timeout", "10s", "-s", script, spec.url]
  const cmd = hasTaskset() ? ["taskset", "-c", "1", "wrk", ...args] : ["wrk", ...args]
  return { cmd, script }
}

function toMs(value: string, unit: string): number {
  const n = Number(value)
  return unit === "us" ? n / 1000 : unit === "s" ? n * 1000 : unit === "m" ? n * 60_000 : n
}

/** Reads wrk's summary: requests/s, the latency distribution, errors. */
export function parseWrk(out: string): Omit<LoadResult, "generator"> {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0)
  const pct = (p: string) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s|m)`).exec(out)
    return m ? toMs(m[1]!, m[2]!) : NaN
  }
  const max = /Latency\s+[\d.]+\w+\s+[\d.]+\w+\s+([\d.]+)(us|ms|s|m)/.exec(out)
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0)
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0)
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  const errors = non2xx + (socketErrors ? socketErrors.slice(1).reduce((a, b) => a + Number(b), 0) : 0)
  return { requestsPerSecond: rps, p50Ms: pct("50"), p99Ms: pct("99"), maxMs: max ? toMs(max[1]!, max[2]!) : NaN, requests, errors }
}

/** A fetch-based generator for machines without wrk: `connections` loops for the duration. */
async function runBuiltIn(spec: LoadSpec): Promise<LoadResult> {
  const latencies: number[] = []
  let errors = 0
  let counter = 0
  const prefix = Math.random().toString(36).slice(2)
  const endAt = performance.now() + spec.durationSeconds * 1000
  const worker = async () => {
    while (performance.now() < endAt) {
      counter++
      const body = spec.body?.replaceAll("{n}", `${prefix}-${counter}`)
      const t0 = performance.now()
      try {
        const res = await fetch(spec.url, { method: spec.method, headers: spec.headers, body })
        await res.arrayBuffer()
        if (res.status >= 400) errors++
      } catch {
        errors++
      }
      latencies.push(performance.now() - t0)
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: spec.connections }, worker))
  const elapsedS = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN
  return {
    requestsPerSecond: latencies.length / elapsedS,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: latencies.at(-1) ?? NaN,
    requests: latencies.length,
    errors,
    generator: "built-in",
  }
}
