import { SQL } from "bun"
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import type { Socket } from "bun"
import { openPostgresStore } from "../../src/store/postgres/store"
import { openPostgresContractStore } from "./contract/stores"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * What only the PostgreSQL store has: several nodes on one database. The contract suite
 * (test/store/contract/) covers what both stores share.
 */

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn()
}, SLOW_HOOK_TIMEOUT_MS)

async function node(url?: string) {
  const opened = await openPostgresContractStore({ url })
  cleanups.push(opened.cleanup)
  return opened
}

async function admin(url: string): Promise<SQL> {
  const sql = new SQL(url, { max: 1 })
  cleanups.push(() => sql.close())
  return sql
}

/** Resolves once `fn` is true; fails the test after `timeoutMs` (notifications are asynchronous). */
async function eventually(fn: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!fn()) {
    if (Date.now() > deadline) throw new Error("the condition did not become true in time")
    await Bun.sleep(10)
  }
}

describe("cache invalidation across nodes", () => {
  test("a write on one node that names a cached table moves the change version of the other node", async () => {
    const a = await node()
    const b = await node(a.url)
    const before = b.store.changeVersion()
    await a.store.write(async (q) => q.revokeApiKey("key_none", 1), { changed: ["api_keys"] })
    await eventually(() => b.store.changeVersion() !== before)
  })

  test("a write that rolls back tells no other node anything", async () => {
    const a = await node()
    const b = await node(a.url)
    const before = b.store.changeVersion()
    await expect(
      a.store.write(
        async () => {
          throw new Error("rolled back")
        },
        { changed: ["api_keys"] },
      ),
    ).rejects.toThrow("rolled back")
    // A committed marker write afterwards: once it is seen, the rolled-back one would have been too.
    const c = await node(a.url)
    const marker = c.store.changeVersion()
    await a.store.write(async (q) => q.setSetting("admin_token_hash", "x"), { changed: ["accounts"] })
    await eventually(() => c.store.changeVersion() !== marker)
    await eventually(() => b.store.changeVersion() !== before)
    expect(Number(b.store.changeVersion()) - Number(before)).toBe(1)
  })

  test("the version moves when the listening connection comes back, since notifications sent while it was down are lost", async () => {
    const a = await node()
    const sql = await admin(a.url)
    const before = a.store.changeVersion()
    const terminated = await sql`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN%'`
    expect(terminated.length).toBe(1)
    await eventually(() => a.store.changeVersion() !== before)
  })
})

describe("before-commit hooks", () => {
  test("flush runs the hooks in a transaction of their own, without any write", async () => {
    const { store } = await node()
    let pending: string | null = "flushed"
    store.beforeCommit(async (q) => {
      if (pending === null) return
      await q.setSetting("admin_token_hash", pending)
      pending = null
    })
    await store.flush()
    expect(await store.getSetting("admin_token_hash")).toBe("flushed")
  })

  test("when the commit fails, the write rejects, no after-commit work runs, and each hook's failure function runs", async () => {
    const { store, url } = await node()
    const sql = await admin(url)
    // A deferred constraint trigger runs at COMMIT: the way to make a COMMIT fail on demand.
    await sql.unsafe(`CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.value = 'poison' THEN RAISE EXCEPTION 'poison committed'; END IF; RETURN NULL; END $$;
      CREATE CONSTRAINT TRIGGER refuse_poison AFTER INSERT OR UPDATE ON settings DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION refuse_poison()`)
    const events: string[] = []
    store.beforeCommit(async (q, tx) => {
      await q.getSetting("admin_token_hash")
      tx.afterCommit(() => events.push("hook after commit"))
      return () => events.push("hook put its work back")
    })
    const write = store.write(async (q, tx) => {
      await q.setSetting("admin_token_hash", "poison")
      tx.afterCommit(() => events.push("write after commit"))
    })
    await expect(write).rejects.toThrow("poison committed")
    expect(events).toEqual(["hook put its work back"])
    expect(await store.getSetting("admin_token_hash")).toBeNull()
  })
})

/**
 * A TCP relay to the test server that can hold what it relays: the database seems to hang, as
 * one behind a dead network path does, while the server itself stays up for the other tests.
 * What was held is delivered on thaw, so the connections are intact afterwards.
 */
function freezableRelay(targetPort: number) {
  let frozen = false
  const held: (() => void)[] = []
  const relay = (send: () => void) => void (frozen ? held.push(send) : send())
  type Client = { upstream: Promise<Socket<undefined>> }
  const server = Bun.listen<Client>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        client.data = {
          upstream: Bun.connect({
            hostname: "127.0.0.1",
            port: targetPort,
            socket: {
              data: (_up, chunk) => relay(() => void client.write(chunk)),
              close: () => void client.end(),
            },
          }),
        }
      },
      data(client, chunk) {
        const upstream = client.data.upstream
        relay(() => void upstream.then((up) => up.write(chunk)))
      },
      close(client) {
        void client.data.upstream.then((up) => up.end())
      },
    },
  })
  return { port: server.port, freeze: () => void (frozen = true), thaw: () => {
      frozen = false
      for (const send of held.splice(0)) send()
    }, stop: () => server.stop(true) }
}

describe("ping", () => {
  test("rejects within its timeout when the database stops answering, and resolves again once it answers", async () => {
    const { url } = await node()
    const target = new URL(url)
    const relay = freezableRelay(Number(target.port))
    cleanups.push(async () => relay.stop())
    target.port = String(relay.port)
    const store = await openPostgresStore(target.toString(), { pingTimeoutMs: 300 })
    cleanups.push(async () => {
      relay.thaw()
      await store.close()
    })
    await store.ping()
    relay.freeze()
    const startedMs = Date.now()
    await expect(store.ping()).rejects.toThrow("did not answer within 300 ms")
    expect(Date.now() - startedMs).toBeLessThan(5_000)
    relay.thaw()
    await store.ping()
  })
})
