import type { Database } from "bun:sqlite"
import type { CachedTable } from "./change-tracker"

/**
 * Runs write transactions on the single writer connection with group commit: every write
 * issued in one event-loop turn runs in its own SAVEPOINT of one shared transaction, and all of
 * them are answered after the single COMMIT (one fsync for the batch; docs/performance.md §
 * "What the numbers say"). A write that throws rolls back only its own savepoint. Nobody is answered before the
 * commit, so durability is the same as one transaction per write.
 */
export interface Writer {
  /**
   * Runs `fn` inside a transaction; resolves with its result once committed. `fn` must be
   * synchronous. A write that changes rows the process caches names their tables in `changed`,
   * and the caches are invalidated when it commits, so no caller has to remember to.
   */
  write<T>(fn: (db: Database, tx: WriteTx) => T, options?: { changed?: readonly CachedTable[] }): Promise<T>
  /** Commits the open batch now (used at shutdown). */
  flush(): void
  /**
   * Runs `fn` in every batch's transaction just before its COMMIT, in a savepoint of its own: a
   * write that can wait for the next commit rides along with it instead of paying a commit of
   * its own. A `fn` that throws is rolled back alone and reported like a failing callback; the
   * function it returns, if any, runs if the COMMIT itself fails.
   */
  beforeCommit(fn: BeforeCommit): void
}

/** Work that joins every batch just before its commit; returns what to do if that commit fails. */
export type BeforeCommit = (db: Database, tx: WriteTx) => (() => void) | void

/** What a write can ask of its transaction. */
export interface WriteTx {
  /**
   * Runs `fn` once the transaction has committed (never if it rolls back): the place to start
   * in-memory work, such as scheduling a timer, about rows that must be durable first.
   */
  afterCommit(fn: () => void): void
}

interface Pending {
  resolve: () => void
  reject: (err: unknown) => void
  afterCommit: (() => void)[]
}

export function createWriter(
  db: Database,
  options: {
    schedule?: (fn: () => void) => void
    onCallbackError?: (err: unknown) => void
    /** Called once a write that changed cached tables has committed (the change tracker's bump). */
    onCachedTablesChanged?: (tables: readonly CachedTable[]) => void
  } = {},
): Writer {
  const schedule = options.schedule ?? setImmediate
  const onCallbackError = options.onCallbackError ?? ((err: unknown) => queueMicrotask(() => { throw err }))
  let batch: Pending[] | null = null
  const hooks: BeforeCommit[] = []

  /** The before-commit hooks, each in its own savepoint, their after-commit work added to the batch. */
  function runHooks(pending: Pending[]): void {
    for (const hook of hooks) {
      const afterCommit: (() => void)[] = []
      let onFailure: (() => void) | void
      db.run("SAVEPOINT h")
      try {
        onFailure = hook(db, { afterCommit: (cb) => void afterCommit.push(cb) })
        db.run("RELEASE h")
      } catch (err) {
        db.run("ROLLBACK TO h")
        db.run("RELEASE h")
        onCallbackError(err)
        continue
      }
      pending.push({ resolve: () => {}, reject: (err) => (onFailure ? onFailure() : onCallbackError(err)), afterCommit })
    }
  }

  function commit(): void {
    const pending = batch
    batch = null
    if (!pending) return
    runHooks(pending)
    try {
      db.run("COMMIT")
    } catch (err) {
      try {
        db.run("ROLLBACK")
      } catch {
        // The failed COMMIT may already have rolled back; nothing more to undo.
      }
      for (const p of pending) p.reject(err)
      return
    }
    for (const p of pending) {
      for (const fn of p.afterCommit) {
        // The data is committed whatever a callback does; one failing must not strand the others.
        try {
          fn()
        } catch (err) {
          onCallbackError(err)
        }
      }
      p.resolve()
    }
  }

  return {
    write<T>(fn: (db: Database, tx: WriteTx) => T, writeOptions?: { changed?: readonly CachedTable[] }): Promise<T> {
      if (!batch) {
        // A busy or closed database must reject the write, not throw: callers chain .catch()
        // (often from a timer), and a synchronous throw there would be an uncaught exception.
        try {
          db.run("BEGIN IMMEDIATE")
        } catch (err) {
          return Promise.reject(err)
        }
        batch = []
        schedule(commit)
      }
      db.run("SAVEPOINT w")
      const afterCommit: (() => void)[] = []
      const changed = writeOptions?.changed
      const onChanged = options.onCachedTablesChanged
      // First among the callbacks: whatever runs after the commit must already see fresh caches.
      if (changed?.length && onChanged) afterCommit.push(() => onChanged(changed))
      let result: T
      try {
        result = fn(db, { afterCommit: (cb) => void afterCommit.push(cb) })
        if (result instanceof Promise) throw new TypeError("Writer.write() needs a synchronous function")
        db.run("RELEASE w")
      } catch (err) {
        db.run("ROLLBACK TO w")
        db.run("RELEASE w")
        return Promise.reject(err)
      }
      const current = batch
      return new Promise<T>((resolve, reject) => {
        current.push({ resolve: () => resolve(result), reject, afterCommit })
      })
    },
    flush: commit,
    beforeCommit: (fn) => void hooks.push(fn),
  }
}
