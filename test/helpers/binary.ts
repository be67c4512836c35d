import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"

/*
 * The compiled executable (`bun run build` → dist/wagate) for end-to-end tests of the artefact an
 * operator runs. Building takes tens of seconds on a busy 2-core machine: a `beforeAll` that calls
 * `ensureBinary()` needs an explicit timeout (BUILD_TIMEOUT_MS), since Bun 1.4.5 gives hooks 5 s
 * whatever bunfig.toml says.
 */

const REPO = join(import.meta.dir, "..", "..")
export const BINARY = join(REPO, "dist", "wagate")
/** Longest a build may take on a busy 2-core machine (a few seconds on an idle one). */
const BUILD_LIMIT_MS = 180_000
/** What a `beforeAll` that may build the binary should allow: longer than the build's own limit, so a stuck build is reported with its output. */
export const BUILD_TIMEOUT_MS = BUILD_LIMIT_MS + 30_000

/** The newest modification time of any file under `dir`. */
function newestMtimeMs(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtimeMs(path) : statSync(path).mtimeMs)
  }
  return newest
}

/**
 * Builds dist/wagate unless it is newer than every source file (and package.json and bun.lock,
 * which decide what gets bundled), and returns its path. Throws with the build's output on failure.
 */
export async function ensureBinary(): Promise<string> {
  const newestInput = Math.max(newestMtimeMs(join(REPO, "src")), statSync(join(REPO, "package.json")).mtimeMs, statSync(join(REPO, "bun.lock")).mtimeMs)
  if (existsSync(BINARY) && statSync(BINARY).mtimeMs > newestInput) return BINARY
  const build = Bun.spawn([process.execPath, "run", "build"], { cwd: REPO, stdout: "pipe", stderr: "pipe", timeout: BUILD_LIMIT_MS })
  const [exitCode, out, err] = await Promise.all([build.exited, new Response(build.stdout).text(), new Response(build.stderr).text()])
  if (exitCode !== 0) {
    const why = build.signalCode ? `was stopped after ${BUILD_LIMIT_MS / 1000} s (${build.signalCode})` : `failed (exit ${exitCode})`
    throw new Error(`bun run build ${why}:\n${out}\n${err}`)
  }
  return BINARY
}
