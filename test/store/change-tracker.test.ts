import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createChangeTracker } from "../../src/store/sqlite/change-tracker"
import { openDatabase, type Database } from "../../src/store/sqlite/db"

// Two connections to one file: the server's and, say, a CLI command's.
let dir: string
let server: Database
let cli: Database
let turnEnds: (() => void)[]
const endTurn = () => turnEnds.splice(0).forEach((fn) => fn())

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "wagate-changes-"))
  server = openDatabase(join(dir, "w.db"))
  cli = openDatabase(join(dir, "w.db"))
  server.run("CREATE TABLE t (v INTEGER)")
  turnEnds = []
})

afterEach(() => {
  server.close()
  cli.close()
  rmSync(dir, { recursive: true, force: true })
})

describe("change tracker", () => {
  test("a commit by another connection changes the version from the next event-loop turn on", () => {
    const changes = createChangeTracker(server, (fn) => void turnEnds.push(fn))
    const before = changes.version()
    cli.run("INSERT INTO t VALUES (1)")
    expect(changes.version()).toBe(before)
    endTurn()
    expect(changes.version()).not.toBe(before)
  })

  test("a change through this connection, once bumped, changes the version at once", () => {
    const changes = createChangeTracker(server, (fn) => void turnEnds.push(fn))
    const before = changes.version()
    server.run("INSERT INTO t VALUES (1)")
    changes.bump()
    expect(changes.version()).not.toBe(before)
  })

  test("without changes the version stays the same across turns", () => {
    const changes = createChangeTracker(server, (fn) => void turnEnds.push(fn))
    const before = changes.version()
    endTurn()
    expect(changes.version()).toBe(before)
  })
})
