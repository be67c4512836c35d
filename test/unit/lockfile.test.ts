import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { acquireLock, LockHeldError, readLock, type LockOwner } from "../../src/lib/lockfile"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

let dir: string
let path: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "wagate-lock-"))
  path = join(dir, "wagate.lock")
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const me = (port: number | null = null): LockOwner => ({ pid: process.pid, port, startedAt: "2026-01-05T00:00:00.000Z" })

/** A pid that surely belonged to a process that has exited: a child we started and reaped. */
async function deadPid(): Promise<number> {
  const child = Bun.spawn(["true"])
  await child.exited
  return child.pid
}

describe("acquireLock", () => {
  test("an empty directory is locked with our pid, port and start time", () => {
    acquireLock(path, me(3000))
    expect(readLock(path)).toEqual(me(3000))
  })

  test("update records the port once the server listens", () => {
    const lock = acquireLock(path, me())
    lock.update(4321)
    expect(readLock(path)).toEqual(me(4321))
  })

  test("a lock held by another live process throws LockHeldError naming its pid and port", () => {
    // Our parent process (the test runner's parent) is alive and is not us.
    const other: LockOwner = { pid: process.ppid, port: 3000, startedAt: "2026-01-04T00:00:00.000Z" }
    writeFileSync(path, JSON.stringify(other))
    let caught: unknown
    try {
      acquireLock(path, me())
    } catch (err) {
      caught = err
    }
    expect(caught).toBeInstanceOf(LockHeldError)
    const err = caught as LockHeldError
    expect(err.owner).toEqual(other)
    expect(err.path).toBe(path)
    expect(err.message).toContain(`pid ${process.ppid}`)
    expect(err.message).toContain("port 3000")
    // The holder's lock is left alone.
    expect(readLock(path)).toEqual(other)
  })

  test("a live holder that has not bound a port yet is named without a port", async () => {
    const sleeper = Bun.spawn(["sleep", "30"])
    try {
      writeFileSync(path, JSON.stringify({ pid: sleeper.pid, port: null, startedAt: "x" }))
      expect(() => acquireLock(path, me())).toThrow(LockHeldError)
      expect(() => acquireLock(path, me())).toThrow(`pid ${sleeper.pid})`)
    } finally {
      sleeper.kill()
      await sleeper.exited
    }
  })

  test("a second acquire in the same directory by another live process is refused", async () => {
    const sleeper = Bun.spawn(["sleep", "30"])
    try {
      acquireLock(path, { pid: sleeper.pid, port: 8080, startedAt: "x" })
      expect(() => acquireLock(path, me())).toThrow(`pid ${sleeper.pid}, port 8080`)
    } finally {
      sleeper.kill()
      await sleeper.exited
    }
  })

  test("a stale lock left by a dead process is taken over", async () => {
    writeFileSync(path, JSON.stringify({ pid: await deadPid(), port: 3000, startedAt: "x" }))
    acquireLock(path, me(3001))
    expect(readLock(path)).toEqual(me(3001))
  })

  test("a lock holding our own pid (a restart that reused it) is taken over", () => {
    writeFileSync(path, JSON.stringify({ ...me(1), startedAt: "earlier" }))
    acquireLock(path, me(2))
    expect(readLock(path)).toEqual(me(2))
  })

  test("an unreadable lock file is taken over", () => {
    writeFileSync(path, "not json")
    acquireLock(path, me())
    expect(readLock(path)).toEqual(me())
  })
})

describe("release", () => {
  test("release removes our own lock, and the directory can be locked again", () => {
    const lock = acquireLock(path, me())
    lock.release()
    expect(existsSync(path)).toBe(false)
    acquireLock(path, me(5))
    expect(readLock(path)).toEqual(me(5))
  })

  test("release leaves a lock that another process has taken since", () => {
    const lock = acquireLock(path, me())
    const other = JSON.stringify({ pid: process.ppid, port: 9000, startedAt: "later" })
    writeFileSync(path, other)
    lock.release()
    expect(readFileSync(path, "utf8")).toBe(other)
  })

  test("release after the file is gone does nothing", () => {
    const lock = acquireLock(path, me())
    rmSync(path)
    expect(() => lock.release()).not.toThrow()
    expect(existsSync(path)).toBe(false)
  })
})

describe("readLock", () => {
  test("an absent lock reads as null", () => {
    expect(readLock(path)).toBeNull()
  })
})
