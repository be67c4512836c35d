import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { migrate, openDatabase, type Database } from "../../src/store/sqlite/db"
import { createWriter } from "../../src/store/sqlite/writer"
import { TEST_EPOCH_MS } from "../helpers/test-clock"

let dir: string
let db: Database
let reader: Database

// A file database, so that a second connection sees exactly what has been committed.
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "wagate-writer-"))
  const path = join(dir, "wagate.db")
  db = openDatabase(path)
  migrate(db, TEST_EPOCH_MS)
  db.run("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE) STRICT")
  // A deferred foreign key is checked only at COMMIT: the way to make a COMMIT fail on demand.
  db.run("CREATE TABLE parent (id INTEGER PRIMARY KEY) STRICT")
  db.run("CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED) STRICT")
  reader = openDatabase(path)
})

afterEach(() => {
  reader.close()
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

const committed = () => reader.query<{ v: string }, []>("SELECT v FROM t ORDER BY id").all().map((r) => r.v)
const insert = (v: string) => (d: Database) => {
  d.run("INSERT INTO t (v) VALUES (?)", [v])
  return v
}

/** A writer whose commits run only when the test says so. */
function manualWriter(options: Parameters<typeof createWriter>[1] = {}) {
  const scheduled: (() => void)[] = []
  const writer = createWriter(db, { schedule: (fn) => scheduled.push(fn), ...options })
  return { writer, scheduled, commit: () => scheduled.shift()!() as unknown }
}

/** Tracks whether a promise has settled, without awaiting it. */
function track<T>(p: Promise<T>) {
  const state = { settled: false }
  p.then(
    () => (state.settled = true),
    () => (state.settled = true),
  )
  return state
}

/** Lets pending promise reactions run, without moving time. */
const flushMicrotasks = () => new Promise<void>((r) => queueMicrotask(r))

describe("group commit", () => {
  test("writes issued in one turn share one commit, and nobody is answered before it", async () => {
    const { writer, scheduled, commit } = manualWriter()
    const writes = ["a", "b", "c"].map((v) => writer.write(insert(v)))
    const states = writes.map(track)
    expect(scheduled).toHaveLength(1)
    await flushMicrotasks()
    expect(states.map((s) => s.settled)).toEqual([false, false, false])
    expect(committed()).toEqual([])
    commit()
    expect(committed()).toEqual(["a", "b", "c"])
    expect(await Promise.all(writes)).toEqual(["a", "b", "c"])
  })

  test("with the default scheduler a second connection sees nothing before the promises resolve and everything after", async () => {
    const writer = createWriter(db)
    const writes = ["a", "b", "c"].map((v) => writer.write(insert(v)))
    expect(committed()).toEqual([])
    // Even the first write is answered only once the whole batch is durable.
    const seenWhenFirstResolves = await writes[0]!.then(() => committed())
    expect(seenWhenFirstResolves).toEqual(["a", "b", "c"])
    await Promise.all(writes)
    expect(committed()).toEqual(["a", "b", "c"])
  })

  test("writes in separate turns are separate commits", async () => {
    const { writer, scheduled, commit } = manualWriter()
    const first = writer.write(insert("a"))
    commit()
    await first
    expect(committed()).toEqual(["a"])
    const second = writer.write(insert("b"))
    expect(scheduled).toHaveLength(1)
    expect(committed()).toEqual(["a"])
    commit()
    await second
    expect(committed()).toEqual(["a", "b"])
  })

  test("a write resolves with the value its function returned", async () => {
    const writer = createWriter(db)
    const id = await writer.write((d) => d.query<{ id: number }, [string]>("INSERT INTO t (v) VALUES (?) RETURNING id").get("x")!.id)
    expect(id).toBe(1)
  })

  test("flush commits the open batch at once and the scheduled commit then does nothing", async () => {
    const { writer, scheduled, commit } = manualWriter()
    const write = writer.write(insert("a"))
    writer.flush()
    expect(committed()).toEqual(["a"])
    expect(await write).toBe("a")
    commit()
    expect(db.inTransaction).toBe(false)
    expect(scheduled).toHaveLength(0)
  })
})

describe("failures", () => {
  test("a throwing write rolls back only its own savepoint; the others commit", async () => {
    const { writer, commit } = manualWriter()
    const a = writer.write(insert("a"))
    const b = writer.write((d) => {
      d.run("INSERT INTO t (v) VALUES ('b1')")
      d.run("INSERT INTO t (v) VALUES ('b2')")
      throw new Error("business rule refused")
    })
    const c = writer.write(insert("c"))
    commit()
    expect(await a).toBe("a")
    await expect(b).rejects.toThrow("business rule refused")
    expect(await c).toBe("c")
    expect(committed()).toEqual(["a", "c"])
  })

  test("a constraint violation rolls back that write's earlier statements too", async () => {
    const { writer, commit } = manualWriter()
    const a = writer.write(insert("dup"))
    const b = writer.write((d) => {
      d.run("INSERT INTO t (v) VALUES ('b')")
      d.run("INSERT INTO t (v) VALUES ('dup')")
    })
    commit()
    await a
    await expect(b).rejects.toThrow(/UNIQUE/)
    expect(committed()).toEqual(["dup"])
  })

  test("a failed COMMIT rejects every write of the batch and commits none of them", async () => {
    const { writer, commit } = manualWriter()
    const a = writer.write(insert("a"))
    const orphan = writer.write((d) => d.run("INSERT INTO child (parent_id) VALUES (42)"))
    const c = writer.write(insert("c"))
    commit()
    const results = await Promise.allSettled([a, orphan, c])
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"])
    for (const r of results) expect(String((r as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/)
    expect(committed()).toEqual([])
    expect(reader.query("SELECT * FROM child").all()).toEqual([])
  })

  test("after a failed COMMIT the writer starts afresh", async () => {
    const { writer, commit } = manualWriter()
    const doomed = writer.write((d) => d.run("INSERT INTO child (parent_id) VALUES (42)"))
    commit()
    await expect(doomed).rejects.toThrow(/FOREIGN KEY/)
    await doomed.catch(() => {})
    expect(db.inTransaction).toBe(false)
    const next = writer.write(insert("after"))
    commit()
    expect(await next).toBe("after")
    expect(committed()).toEqual(["after"])
  })

  test("an async body holds later writes until it is done, and its statements commit with the batch", async () => {
    const { writer, commit } = manualWriter()
    const order: string[] = []
    const slow = writer.write(async (d) => {
      d.run("INSERT INTO t (v) VALUES ('slow-1')")
      order.push("slow-1")
      await flushMicrotasks()
      await flushMicrotasks()
      d.run("INSERT INTO t (v) VALUES ('slow-2')")
      order.push("slow-2")
      return "slow"
    })
    const next = writer.write((d) => {
      order.push("next")
      return insert("next")(d)
    })
    expect(order).toEqual(["slow-1"])
    await flushMicrotasks()
    await flushMicrotasks()
    await flushMicrotasks()
    await flushMicrotasks()
    expect(order).toEqual(["slow-1", "slow-2", "next"])
    commit()
    expect(await Promise.all([slow, next])).toEqual(["slow", "next"])
    expect(committed()).toEqual(["slow-1", "slow-2", "next"])
  })

  test("an async body that rejects rolls back all of its statements, the ones after its first await included", async () => {
    const { writer, commit } = manualWriter()
    const a = writer.write(insert("a"))
    const bad = writer.write(async (d) => {
      d.run("INSERT INTO t (v) VALUES ('bad-1')")
      await flushMicrotasks()
      d.run("INSERT INTO t (v) VALUES ('bad-2')")
      throw new Error("boom")
    })
    const c = writer.write(insert("c"))
    await expect(bad).rejects.toThrow("boom")
    commit()
    expect(await Promise.all([a, c])).toEqual(["a", "c"])
    expect(committed()).toEqual(["a", "c"])
  })

  test("a commit that falls due while an async body runs waits for the body and includes it", async () => {
    const { writer, commit } = manualWriter()
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const slow = writer.write(async (d) => {
      d.run("INSERT INTO t (v) VALUES ('first')")
      await gate
      d.run("INSERT INTO t (v) VALUES ('second')")
      return "done"
    })
    const committing = commit() as unknown as Promise<void>
    await flushMicrotasks()
    expect(committed()).toEqual([])
    release()
    await committing
    expect(await slow).toBe("done")
    expect(committed()).toEqual(["first", "second"])
  })
})

describe("afterCommit", () => {
  test("callbacks run after the COMMIT, in write order, before the writes resolve", async () => {
    const { writer, commit } = manualWriter()
    const log: string[] = []
    const a = writer.write((d, tx) => {
      insert("a")(d)
      tx.afterCommit(() => log.push(`a sees ${committed().join(",")}`))
    })
    const b = writer.write((d, tx) => {
      insert("b")(d)
      tx.afterCommit(() => log.push("b1"))
      tx.afterCommit(() => log.push("b2"))
    })
    void a.then(() => log.push("a resolved"))
    await flushMicrotasks()
    expect(log).toEqual([])
    commit()
    await Promise.all([a, b])
    expect(log).toEqual(["a sees a,b", "b1", "b2", "a resolved"])
  })

  test("a rolled-back write's callbacks never run", async () => {
    const { writer, commit } = manualWriter()
    const ran: string[] = []
    const bad = writer.write((_d, tx) => {
      tx.afterCommit(() => ran.push("bad"))
      throw new Error("no")
    })
    const good = writer.write((_d, tx) => tx.afterCommit(() => ran.push("good")))
    commit()
    await good
    await bad.catch(() => {})
    expect(ran).toEqual(["good"])
  })

  test("no callback runs when the COMMIT fails", async () => {
    const { writer, commit } = manualWriter()
    const ran: string[] = []
    const w = writer.write((d, tx) => {
      d.run("INSERT INTO child (parent_id) VALUES (7)")
      tx.afterCommit(() => ran.push("x"))
    })
    commit()
    await w.catch(() => {})
    expect(ran).toEqual([])
  })

  test("a throwing callback is reported and does not stop the others or the answers", async () => {
    const reported: unknown[] = []
    const { writer, commit } = manualWriter({ onCallbackError: (err) => reported.push(err) })
    const ran: string[] = []
    const a = writer.write((_d, tx) => {
      tx.afterCommit(() => {
        throw new Error("callback broke")
      })
      tx.afterCommit(() => ran.push("a2"))
      return "a"
    })
    const b = writer.write((_d, tx) => {
      tx.afterCommit(() => ran.push("b"))
      return "b"
    })
    commit()
    expect(await Promise.all([a, b])).toEqual(["a", "b"])
    expect(ran).toEqual(["a2", "b"])
    expect(reported.map((e) => (e as Error).message)).toEqual(["callback broke"])
  })
})

describe("beforeCommit", () => {
  test("a hook's rows join the next batch's commit, and its after-commit work runs once that commit is done", async () => {
    const { writer, commit } = manualWriter()
    const ran: string[] = []
    let queued = ["late"]
    writer.beforeCommit((d, tx) => {
      for (const v of queued) insert(v)(d)
      if (queued.length > 0) tx.afterCommit(() => ran.push("hook committed"))
      queued = []
    })
    const write = writer.write(insert("a"))
    expect(committed()).toEqual([])
    commit()
    await write
    expect(committed()).toEqual(["a", "late"])
    expect(ran).toEqual(["hook committed"])
  })

  test("a hook that throws is rolled back alone and reported; the batch still commits", async () => {
    const errors: unknown[] = []
    const { writer, commit } = manualWriter({ onCallbackError: (err) => errors.push(err) })
    writer.beforeCommit((d) => {
      insert("from the hook")(d)
      throw new Error("hook failed")
    })
    const write = writer.write(insert("a"))
    commit()
    await write
    expect(committed()).toEqual(["a"])
    expect(errors).toHaveLength(1)
  })

  test("when the commit fails, the hook's failure function runs instead of its after-commit work", async () => {
    const { writer, commit } = manualWriter()
    const ran: string[] = []
    writer.beforeCommit((_d, tx) => {
      tx.afterCommit(() => ran.push("committed"))
      return () => ran.push("failed")
    })
    const write = writer.write((d) => d.run("INSERT INTO child (id, parent_id) VALUES (1, 42)"))
    commit()
    await expect(write).rejects.toThrow()
    expect(ran).toEqual(["failed"])
  })
})

describe("cache invalidation in the write path", () => {
  test("a write that names the cached tables it changed reports them once committed, and never when it rolls back", async () => {
    const reported: string[][] = []
    const { writer, commit } = manualWriter({ onCachedTablesChanged: (tables) => void reported.push([...tables]) })
    const named = writer.write(insert("a"), { changed: ["api_keys"] })
    const unnamed = writer.write(insert("b"))
    const failing = writer.write(insert("a"), { changed: ["accounts"] })
    expect(reported).toEqual([])
    commit()
    await Promise.all([named, unnamed])
    await failing.catch(() => undefined)
    expect(reported).toEqual([["api_keys"]])
  })
})
