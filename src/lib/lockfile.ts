import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { redactDatabaseUrl } from "./database-url"

/** The lock file's name inside the data directory. */
export const LOCK_FILE = "wagate.lock"

/** Who holds a data directory. */
export interface LockOwner {
  pid: number
  port: number | null
  /** The address the server listens on (0.0.0.0 or :: for every interface). */
  host?: string
  startedAt: string
  /**
   * A token the running server accepts as its admin token, for this run only. The lock file
   * is readable by its owner alone (0600), and whoever can read the data directory can read
   * the database anyway, so local CLI commands use it to talk to the server.
   */
  localToken?: string
  /**
   * The database the server runs on: "sqlite" (the data directory's), or the PostgreSQL URL
   * without its password, so a CLI command started without the URL refuses to open SQLite
   * beside it (src/cli/database-guard.ts). Absent in a lock written by an older wagate.
   */
  database?: string
}

/** What the lock records of the server's database (see LockOwner.database). */
export function lockedDatabase(databaseUrl: string | null): string {
  return databaseUrl === null ? "sqlite" : redactDatabaseUrl(databaseUrl)
}

/** Raised when another live process already serves the data directory. */
export class LockHeldError extends Error {
  constructor(
    readonly path: string,
    readonly owner: LockOwner,
  ) {
    super(
      `Another wagate (pid ${owner.pid}${owner.port !== null ? `, port ${owner.port}` : ""}) is already serving this data directory. ` +
        `Stop it first, or use another --data directory. (lock file: ${path})`,
    )
    this.name = "LockHeldError"
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM means the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The live server holding the lock, or null when none runs (no lock, or a stale one). */
export function liveLockOwner(path: string): LockOwner | null {
  const owner = heldLockOwner(path)
  return owner && owner.pid !== process.pid ? owner : null
}

/**
 * The live process holding the lock, this one included, or null. A check of which database the
 * directory's server uses reads it so: in tests the server runs in the same process.
 */
export function heldLockOwner(path: string): LockOwner | null {
  const owner = readLock(path)
  return owner && isAlive(owner.pid) ? owner : null
}

/** Reads the lock file; null when absent or unreadable. */
export function readLock(path: string): LockOwner | null {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as LockOwner
  } catch {
    return null
  }
}

/**
 * Takes the exclusive lock of a data directory: a file created with O_EXCL holding our pid. A
 * lock left by a process that no longer runs (a crash, SIGKILL) is taken over.
 */
export function acquireLock(path: string, owner: LockOwner): { update(port: number, host?: string): void; release(): void } {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(owner), { flag: "wx", mode: 0o600 })
      return {
        update(port, host) {
          writeFileSync(path, JSON.stringify({ ...owner, port, host }), { mode: 0o600 })
        },
        release() {
          if (readLock(path)?.pid === owner.pid) rmSync(path, { force: true })
        },
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err
      const current = readLock(path)
      if (current && current.pid !== owner.pid && isAlive(current.pid)) throw new LockHeldError(path, current)
      rmSync(path, { force: true })
    }
  }
  throw new Error(`Could not take the lock ${path}`)
}
