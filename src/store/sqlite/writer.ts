import type { Database } from "bun:sqlite"
import type { CachedTable } from "../cached-tables"
import type { WriteTx as StoreWriteTx } from "../store"

/** What a write body of the writer can ask of its transaction (the seam adds `notify` on top: src/store/sqlite/store.ts). */
export type WriteTx = Pick<StoreWriteTx, "afterCommit">

/**
 * Runs write transactions on the single writer connection with group commit: every write
 * issued in one event-loop turn runs in its own SAVEPOINT of one shared transaction, and all of
 * them are answered after the single COMMIT (one fsync for the batch; docs/performance.md §
 * "What the numbers say"). A write that throws rolls back only its own savepoint. Nobody is answered before the
 * commit, so durability is the same as one transaction per write.
 */
export interface Writer {
  /**
   * Runs `fn` inside a transaction; resolves with its result once committed. `fn` may return a
   * promise, but may await only statements on this connection: bodies run one at a time, and a
   * body that waited on the network would hold every other write. A write that changes rows the
   * process caches names their tables in `changed`, and the caches are invalidated when it
   * commits, so no caller has to remember to.
   */
  write<T>(fn: (db: Database, tx: WriteTx) => T | Promise<T>, options?: { changed?: readonly CachedTable[] }): Promise<T>
  /** Commits the open batch now (used at shutdown); resolves once it has committed. */
  flush(): Promise<void>
  /**
   * Runs `fn` in every batch's transaction just before its COMMIT, in a savepoint of its own: a
   * write that can wait for the next commit rides along with it instead of paying a commit of
   * its own. A `fn` that throws is rolled back alone and reported like a failing callback; the
   * function it returns, if any, runs if the COMMIT itself fails.
   */
  beforeCommit(fn: BeforeCommit): void
}

/** Work that joins every batch just before its commit; returns what to do if that commit fails. */
export type BeforeCommit = (db: Database, tx: WriteTx) => (() => void) | void | Promise<(() => void) | void>

interface Pending {
  resolve: () => void
  reject: (err: unknown) => void
  afterCommit: (() => void)[]
}

/**
 * One holder at a time: a write's body, or a commit. Bodies that finish synchronously never
 * wait; a body that awaits (the store's async methods) keeps later bodies and the commit out
 * until it is done, so savepoints never interleave and nothing commits half a body.
 */
function createLock() {
  const waiting: (() => void)[] = []
  let held = false
  return {
    /** Takes the lock now (true) or says it is held (false). */
    tryTake(): boolean {
      if (held) return false
      held = true
      return true
    },
    take(): Promise<void> {
      if (!held) {
        held = true
        return Promise.resolve()
      }
      return new Promise((resolve) => waiting.push(resolve))
    },
    release(): void {
      const next = waiting.shift()
      if (next) next()
      else held = false
    },
  }
}

const isPromise = (v: unknown): v is Promise<unknown> => v instanceof Promise

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
  const lock = createLock()

  /**
   * The before-commit hooks from `from` on, each in its own savepoint, their after-commit work
   * added to the batch. Runs synchronously until a hook returns a promise.
   */
  function runHooks(pending: Pending[], from = 0): void | Promise<void> {
    for (let i = from; i < hooks.length; i++) {
      const afterCommit: (() => void)[] = []
      const failed = (err: unknown) => {
        db.run("ROLLBACK TO h")
        db.run("RELEASE h")
        onCallbackError(err)
      }
      const succeeded = (onFailure: (() => void) | void) => {
        db.run("RELEASE h")
        pending.push({ resolve: () => {}, reject: (err) => (onFailure ? onFailure() : onCallbackError(err)), afterCommit })
      }
      db.run("SAVEPOINT h")
      let result: ReturnType<BeforeCommit>
      try {
        result = hooks[i]!(db, { afterCommit: (cb) => void afterCommit.push(cb) })
      } catch (err) {
        failed(err)
        continue
      }
      if (isPromise(result)) return result.then(succeeded, failed).then(() => runHooks(pending, i + 1))
      succeeded(result)
    }
  }

  /** COMMITs the batch (its hooks have run) and answers its writers; the lock is held. */
  function finish(pending: Pending[]): void {
    try {
      db.run("COMMIT")
    } catch (err) {
      try {
        db.run("ROLLBACK")
      } catch {
        // The failed COMMIT may already have rolled back; nothing more to undo.
      }
      lock.release()
      for (const p of pending) p.reject(err)
      return
    }
    lock.release()
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

  function commitHeld(): Promise<void> {
    const pending = batch
    batch = null
    if (!pending) {
      lock.release()
      return Promise.resolve()
    }
    let hooksDone: void | Promise<void>
    try {
      hooksDone = runHooks(pending)
    } catch (err) {
      // Only a savepoint statement itself can throw here: the batch cannot be trusted.
      hooksDone = Promise.reject(err)
    }
    if (!isPromise(hooksDone)) {
      finish(pending)
      return Promise.resolve()
    }
    return hooksDone.then(
      () => finish(pending),
      (err) => {
        try {
          db.run("ROLLBACK")
        } catch {}
        lock.release()
        for (const p of pending) p.reject(err)
      },
    )
  }

  /** Commits the open batch: at once when no body is running, else as soon as it is done. */
  function commit(): Promise<void> {
    if (lock.tryTake()) return commitHeld()
    return lock.take().then(commitHeld)
  }

  /** Runs one body in its savepoint of the open batch; the lock is held. */
  function runBody<T>(
    fn: (db: Database, tx: WriteTx) => T | Promise<T>,
    changed: readonly CachedTable[] | undefined,
    done: (outcome: { ok: true; result: T; afterCommit: (() => void)[] } | { ok: false; err: unknown }) => void,
  ): void {
    if (!batch) {
      // A busy or closed database must reject the write, not throw: callers chain .catch()
      // (often from a timer), and a synchronous throw there would be an uncaught exception.
      try {
        db.run("BEGIN IMMEDIATE")
      } catch (err) {
        return done({ ok: false, err })
      }
      batch = []
      schedule(() => void commit())
    }
    db.run("SAVEPOINT w")
    const afterCommit: (() => void)[] = []
    const onChanged = options.onCachedTablesChanged
    // First among the callbacks: whatever runs after the commit must already see fresh caches.
    if (changed?.length && onChanged) afterCommit.push(() => onChanged(changed))
    const settle = (ok: boolean, value: unknown) => {
      if (ok) {
        db.run("RELEASE w")
        done({ ok: true, result: value as T, afterCommit })
      } else {
        db.run("ROLLBACK TO w")
        db.run("RELEASE w")
        done({ ok: false, err: value })
      }
    }
    let result: T | Promise<T>
    try {
      result = fn(db, { afterCommit: (cb) => void afterCommit.push(cb) })
    } catch (err) {
      return settle(false, err)
    }
    if (isPromise(result)) result.then((v) => settle(true, v), (err) => settle(false, err))
    else settle(true, result)
  }

  return {
    write<T>(fn: (db: Database, tx: WriteTx) => T | Promise<T>, writeOptions?: { changed?: readonly CachedTable[] }): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const start = () =>
          runBody(fn, writeOptions?.changed, (outcome) => {
            if (!outcome.ok) reject(outcome.err)
            // The batch is the one the body ran in: a commit cannot start while the lock is held.
            else batch!.push({ resolve: () => resolve(outcome.result), reject, afterCommit: outcome.afterCommit })
            lock.release()
          })
        if (lock.tryTake()) start()
        else void lock.take().then(start)
      })
    },
    flush: commit,
    beforeCommit: (fn) => void hooks.push(fn),
  }
}
