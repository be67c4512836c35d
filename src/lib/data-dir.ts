import { chmodSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Logger } from "./logger"

/** The data directory's mode: only wagate's user may list or enter it. */
export const DATA_DIR_MODE = 0o700
/** The mode of every file in it: the database holds WhatsApp credentials and webhook secrets. */
export const DATA_FILE_MODE = 0o600

/** wagate's own files in the data directory (the database, its -wal and -shm, the lock) all start with this. */
export const OWN_FILE_PREFIX = "wagate."

/** The data directory cannot be used; the message is one sentence saying what to do. */
export class DataDirError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "DataDirError"
  }
}

/**
 * Turns a file-system error met while preparing the data directory into one actionable sentence
 * (a container whose `/data` volume belongs to root is the usual case). Returns null for an error
 * that is not about the directory being usable.
 */
export function dataDirError(err: unknown, dir: string, uid: number | null): DataDirError | null {
  const code = (err as { code?: unknown } | null)?.code
  const who = uid === null ? "the user wagate runs as" : `uid ${uid}`
  const elsewhere = "or choose another directory with --data (WAGATE_DATA_DIR)"
  switch (code) {
    case "EACCES":
    case "EPERM":
      return new DataDirError(`cannot write to data directory ${dir} (permission denied): make it writable by ${who} ${elsewhere}`)
    case "EROFS":
      return new DataDirError(`cannot write to data directory ${dir} (read-only file system): mount it read-write ${elsewhere}`)
    case "ENOTDIR":
    case "EEXIST":
      return new DataDirError(`cannot create data directory ${dir} (it or a parent is a file, not a directory): remove that file ${elsewhere}`)
    case "ENOSPC":
    case "EDQUOT":
      return new DataDirError(`cannot write to data directory ${dir} (no space left): free some space ${elsewhere}`)
    default:
      return null
  }
}

/**
 * Makes the data directory ready before anything opens it: creates it (mode 0700), proves it is
 * writable with a probe file (root passes every permission check, a read-only mount does not),
 * and tightens the directory and wagate's own files when an older wagate or a copy left them
 * looser, logging each change at info. Throws DataDirError with one actionable sentence instead of a raw EACCES.
 */
export function prepareDataDir(dir: string, logger: Logger, uid: number | null = process.getuid?.() ?? null): void {
  try {
    mkdirSync(dir, { recursive: true, mode: DATA_DIR_MODE })
    const probe = join(dir, `.write-test-${process.pid}`)
    writeFileSync(probe, "", { mode: DATA_FILE_MODE })
    rmSync(probe, { force: true })
    tighten(dir, DATA_DIR_MODE, logger)
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      // Only our own files: whatever else an operator keeps there is theirs to decide.
      if (entry.isFile() && entry.name.startsWith(OWN_FILE_PREFIX)) tighten(join(dir, entry.name), DATA_FILE_MODE, logger)
    }
  } catch (err) {
    throw dataDirError(err, dir, uid) ?? err
  }
}

/** Removes permission bits beyond `mode`; the owner's own bits are left as they are. */
function tighten(path: string, mode: number, logger: Logger): void {
  const current = statSync(path).mode & 0o777
  if ((current & ~mode) === 0) return
  chmodSync(path, current & mode)
  logger.info("tightened permissions in the data directory: its files hold credentials", {
    path,
    from: current.toString(8).padStart(4, "0"),
    to: (current & mode).toString(8).padStart(4, "0"),
  })
}
