import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { Database } from "bun:sqlite"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createLogger } from "../../src/lib/logger"
import { DataDirError, dataDirError, prepareDataDir } from "../../src/lib/data-dir"
import { backupDatabase, DATABASE_FILE, openDatabase } from "../../src/store/sqlite/db"

/* The data directory and everything in it is private to wagate's user: real files in a temp dir. */

let root: string
let logLines: string[]
const logger = () => createLogger({ level: "info", format: "json", nowIso: () => "t", write: (line) => logLines.push(line) })
const modeOf = (path: string) => statSync(path).mode & 0o777

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "wagate-perm-"))
  logLines = []
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

describe("a new data directory", () => {
  test("is created 0700, nested parents included, and leaves no probe file behind", () => {
    const dir = join(root, "a", "data")
    prepareDataDir(dir, logger())
    expect(modeOf(dir)).toBe(0o700)
    expect(readdirSync(dir)).toEqual([])
    expect(logLines).toEqual([])
  })

  test("its database, -wal and -shm files are 0600", () => {
    const dir = join(root, "data")
    prepareDataDir(dir, logger())
    const path = join(dir, DATABASE_FILE)
    const db = openDatabase(path)
    try {
      db.run("CREATE TABLE t (x)")
      db.run("INSERT INTO t VALUES (1)")
      for (const file of [path, `${path}-wal`, `${path}-shm`]) expect({ file, mode: modeOf(file) }).toEqual({ file, mode: 0o600 })
    } finally {
      db.close()
    }
  })

  test("a database opened without the CLI (a library user, a test) is 0600 in a 0700 directory too", () => {
    const path = join(root, "fresh", DATABASE_FILE)
    openDatabase(path).close()
    expect(modeOf(join(root, "fresh"))).toBe(0o700)
    expect(modeOf(path)).toBe(0o600)
  })

  test("a backup is 0600 and complete", () => {
    const db = openDatabase(join(root, DATABASE_FILE))
    try {
      db.run("CREATE TABLE t (x)")
      db.run("INSERT INTO t VALUES (42)")
      const target = join(root, "backup.db")
      backupDatabase(db, target)
      expect(modeOf(target)).toBe(0o600)
      const copy = new Database(target, { readonly: true })
      expect(copy.query("SELECT x FROM t").all()).toEqual([{ x: 42 }])
      copy.close()
    } finally {
      db.close()
    }
  })
})

describe("an existing data directory with looser permissions", () => {
  test("is tightened at start, each change logged at info with the old and new mode", () => {
    const dir = join(root, "data")
    mkdirSync(dir, { mode: 0o755 })
    chmodSync(dir, 0o755)
    for (const [name, mode] of [[DATABASE_FILE, 0o644], [`${DATABASE_FILE}-wal`, 0o666], [`${DATABASE_FILE}-shm`, 0o640], ["wagate.lock", 0o600]] as const) {
      writeFileSync(join(dir, name), "")
      chmodSync(join(dir, name), mode)
    }
    prepareDataDir(dir, logger())
    expect(modeOf(dir)).toBe(0o700)
    for (const name of readdirSync(dir)) expect({ name, mode: modeOf(join(dir, name)) }).toEqual({ name, mode: 0o600 })
    const logged = logLines.map((l) => JSON.parse(l))
    expect(logged.map((l) => [l.level, l.path, l.from, l.to]).sort()).toEqual(
      [
        ["info", dir, "0755", "0700"],
        ["info", join(dir, DATABASE_FILE), "0644", "0600"],
        ["info", join(dir, `${DATABASE_FILE}-wal`), "0666", "0600"],
        ["info", join(dir, `${DATABASE_FILE}-shm`), "0640", "0600"],
      ].sort(),
    )
    // A second start finds nothing to change and says nothing.
    logLines.length = 0
    prepareDataDir(dir, logger())
    expect(logLines).toEqual([])
  })

  test("an owner's own narrower bits are kept (a 0400 file stays 0400)", () => {
    const dir = join(root, "data")
    mkdirSync(dir, { mode: 0o700 })
    writeFileSync(join(dir, "wagate.db"), "")
    chmodSync(join(dir, "wagate.db"), 0o444)
    prepareDataDir(dir, logger())
    expect(modeOf(join(dir, "wagate.db"))).toBe(0o400)
  })

  test("files that are not wagate's are left as they are", () => {
    const dir = join(root, "data")
    mkdirSync(dir, { mode: 0o700 })
    writeFileSync(join(dir, "notes.txt"), "")
    chmodSync(join(dir, "notes.txt"), 0o644)
    prepareDataDir(dir, logger())
    expect(modeOf(join(dir, "notes.txt"))).toBe(0o644)
    expect(logLines).toEqual([])
  })
})

describe("a data directory that cannot be used", () => {
  test("a path under a regular file fails with one sentence naming the directory (even as root)", () => {
    writeFileSync(join(root, "file"), "")
    const dir = join(root, "file", "data")
    let thrown: unknown
    try {
      prepareDataDir(dir, logger(), 10001)
    } catch (err) {
      thrown = err
    }
    expect(thrown).toBeInstanceOf(DataDirError)
    expect((thrown as Error).message).toBe(
      `cannot create data directory ${dir} (it or a parent is a file, not a directory): remove that file or choose another directory with --data (WAGATE_DATA_DIR)`,
    )
    expect(existsSync(dir)).toBe(false)
  })

  test.each([
    ["EACCES", 10001, "cannot write to data directory /data (permission denied): make it writable by uid 10001 or choose another directory with --data (WAGATE_DATA_DIR)"],
    ["EPERM", null, "cannot write to data directory /data (permission denied): make it writable by the user wagate runs as or choose another directory with --data (WAGATE_DATA_DIR)"],
    ["EROFS", 0, "cannot write to data directory /data (read-only file system): mount it read-write or choose another directory with --data (WAGATE_DATA_DIR)"],
    ["ENOTDIR", 0, "cannot create data directory /data (it or a parent is a file, not a directory): remove that file or choose another directory with --data (WAGATE_DATA_DIR)"],
    ["ENOSPC", 0, "cannot write to data directory /data (no space left): free some space or choose another directory with --data (WAGATE_DATA_DIR)"],
  ] as const)("%s becomes one actionable sentence", (code, uid, message) => {
    const err = Object.assign(new Error(`${code}: open '/data/.write-test'`), { code })
    expect(dataDirError(err, "/data", uid)?.message).toBe(message)
  })

  test.each([["EIO"], [undefined]])("an unrelated error (%s) is not disguised", (code) => {
    expect(dataDirError(Object.assign(new Error("x"), { code }), "/data", 0)).toBeNull()
    expect(dataDirError(null, "/data", 0)).toBeNull()
  })
})
