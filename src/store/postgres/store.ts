import type { SQL, TransactionSQL } from "bun"
import type { SignalChannel, Store, StoreQueries, WriteOptions, WriteTx } from "../store"
import { queriesOn, type PgQueries } from "./queries"
import type { SessionBounds } from "../session-bounds"
import { checkPostgresSchema, connectPostgres } from "./start-checks"

/*
 * The PostgreSQL implementation of the store's seam (docs/architecture.md § "The store"), for
 * several nodes on one database. Unlike SQLite's group commit, every write is a transaction of
 * its own on a pooled connection: PostgreSQL runs many at once, and a write that waits on
 * another's row lock must not hold up unrelated ones.
 *
 * Caches are invalidated across nodes: a write that names cached tables sends a notification on
 * CHANGES_CHANNEL in its transaction (PostgreSQL delivers it only if the transaction commits),
 * and every node LISTENs. Notifications sent while a node's listening connection is down are
 * lost, so the version also moves each time that connection is (re)established.
 */

/** The channel of cache invalidations; the payload names the changed tables, comma-separated. */
export const CHANGES_CHANNEL = "wagate_changes"

/** The PostgreSQL channel of a signal channel of the seam. */
const signalChannelName = (channel: SignalChannel) => `wagate_${channel}`

/** How long ping() waits for `SELECT 1` before it calls the database unreachable. */
export const DEFAULT_PING_TIMEOUT_MS = 2_000
/** How long close() waits for running queries before it drops the connections, in seconds. */
const CLOSE_TIMEOUT_S = 5
/** Connections in each node's pool. */
export const DEFAULT_MAX_CONNECTIONS = 10

/** A store whose queries are `Q`; with every group implemented it is a full `Store`. */
export type StoreOver<Q> = Omit<Store, keyof StoreQueries | "write" | "beforeCommit"> &
  Q & {
    write<T>(fn: (q: Q, tx: WriteTx) => Promise<T>, options?: WriteOptions): Promise<T>
    beforeCommit(fn: (q: Q, tx: WriteTx) => Promise<(() => void) | void>): void
  }

/** The PostgreSQL store, with the query groups implemented so far (src/store/postgres/queries.ts). */
export type PostgresStore = StoreOver<PgQueries>

type Hook = (q: PgQueries, tx: WriteTx) => Promise<(() => void) | void>

export interface PostgresStoreOptions {
  /** Connections in the pool (the LISTEN connection is extra). */
  maxConnections?: number
  /** How long opening a connection may take at start. */
  connectTimeoutMs?: number
  pingTimeoutMs?: number
  /**
   * The bounds of every session of the node (src/store/postgres/session-bounds.ts), derived from
   * its lease timings (src/domain/session-bounds.ts); the server's defaults without.
   */
  sessionBounds?: SessionBounds
  /** Receives errors of after-commit callbacks and of before-commit hooks (which are rolled back alone). */
  onCallbackError?: (err: unknown) => void
}

/** A hook that ran in a transaction: its after-commit work, and what to do if the commit fails. */
interface RanHook {
  afterCommit: (() => void)[]
  onFailure: ((err: unknown) => void)
}

/**
 * Opens the pool and the listening connection after the start checks (src/store/postgres/start-checks.ts):
 * an unreachable database, a refused login or a schema of another version is a DatabaseStartError
 * or a SchemaTooNewError whose message the operator can act on.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const sql = await connectPostgres(url, { maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, connectTimeoutMs: options.connectTimeoutMs, session: options.sessionBounds })
  try {
    await checkPostgresSchema(sql, url)
    return await createPostgresStore(sql, options)
  } catch (err) {
    await sql.close({ timeout: 0 }).catch(() => {})
    throw err
  }
}

/** The seam over an open pool. */
export async function createPostgresStore(sql: SQL, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const onCallbackError = options.onCallbackError ?? ((err: unknown) => queueMicrotask(() => { throw err }))
  const pingTimeoutMs = options.pingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS
  const hooks: Hook[] = []
  let version = 0
  const bump = () => void version++
  // onlisten runs at the first LISTEN and after every reconnect: what changed meanwhile is unknown.
  const subscription = await sql.listen(CHANGES_CHANNEL, bump, bump)

  /** Runs every hook in its own savepoint of `tx`; a hook that throws is rolled back and reported. */
  async function runHooks(tx: TransactionSQL, writeTx: WriteTx): Promise<RanHook[]> {
    const ran: RanHook[] = []
    for (const hook of hooks) {
      const afterCommit: (() => void)[] = []
      try {
        const onFailure = await tx.savepoint((sp) => hook(queriesOn(sp), { afterCommit: (cb) => void afterCommit.push(cb), notify: writeTx.notify }))
        ran.push({ afterCommit, onFailure: (err) => (onFailure ? onFailure() : onCallbackError(err)) })
      } catch (err) {
        onCallbackError(err)
      }
    }
    return ran
  }

  function runAfterCommit(callbacks: readonly (() => void)[]): void {
    for (const fn of callbacks) {
      // The data is committed whatever a callback does; one failing must not strand the others.
      try {
        fn()
      } catch (err) {
        onCallbackError(err)
      }
    }
  }

  /** Runs `body` and then the hooks in one transaction; after COMMIT, the after-commit work. */
  async function transact<T>(body: (tx: TransactionSQL, writeTx: WriteTx) => Promise<T>, changed: WriteOptions["changed"]): Promise<T> {
    const afterCommit: (() => void)[] = []
    const signals = new Map<string, Set<string>>()
    const writeTx: WriteTx = {
      afterCommit: (cb) => void afterCommit.push(cb),
      notify: (channel, payload) => {
        const channelName = signalChannelName(channel)
        let payloads = signals.get(channelName)
        if (!payloads) signals.set(channelName, (payloads = new Set()))
        payloads.add(payload)
      },
    }
    let ran: RanHook[] = []
    let result: T
    try {
      result = await sql.begin(async (tx) => {
        const value = await body(tx, writeTx)
        ran = await runHooks(tx, writeTx)
        if (changed?.length) await tx`SELECT pg_notify(${CHANGES_CHANNEL}, ${changed.join(",")})`
        // PostgreSQL delivers them at COMMIT, and only if it commits.
        for (const [channelName, payloads] of signals) {
          for (const payload of payloads) await tx`SELECT pg_notify(${channelName}, ${payload})`
        }
        return value
      })
    } catch (err) {
      for (const hook of ran) {
        try {
          hook.onFailure(err)
        } catch (failure) {
          onCallbackError(failure)
        }
      }
      throw err
    }
    // First: whatever runs after the commit must already see fresh caches.
    if (changed?.length) bump()
    runAfterCommit(afterCommit)
    for (const hook of ran) runAfterCommit(hook.afterCommit)
    return result
  }

  const control = {
    kind: "postgres" as const,
    sharedByNodes: true,
    write: <T>(fn: (q: PgQueries, tx: WriteTx) => Promise<T>, writeOptions?: WriteOptions): Promise<T> =>
      transact((tx, writeTx) => fn(queriesOn(tx), writeTx), writeOptions?.changed),
    async listen(channel: SignalChannel, onSignal: (payload: string) => void, onResubscribed?: () => void) {
      // Every registration shares the pool's one listening connection (Bun's SQL.listen).
      const registration = await sql.listen(signalChannelName(channel), onSignal, onResubscribed)
      return () => registration.unlisten()
    },
    beforeCommit: (fn: Hook) => void hooks.push(fn),
    flush: async () => {
      if (hooks.length > 0) await transact(async () => undefined, undefined)
    },
    changeVersion: () => String(version),
    ping: async () => {
      const query = sql`SELECT 1`
      let timer: ReturnType<typeof setTimeout> | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          query.cancel()
          reject(new Error(`the database did not answer within ${pingTimeoutMs} ms`))
        }, pingTimeoutMs)
      })
      try {
        await Promise.race([query, timeout])
      } finally {
        clearTimeout(timer)
      }
    },
    close: async () => {
      try {
        await control.flush()
      } finally {
        // Bounded: a database that stopped answering must not keep a node from shutting down.
        await sql.close({ timeout: CLOSE_TIMEOUT_S })
        await subscription.unlisten().catch(() => {})
      }
    },
  }
  return Object.assign(queriesOn(sql), control) as PostgresStore
}
