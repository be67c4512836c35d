import { expect, setDefaultTimeout, test } from "bun:test"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { describeStores } from "./stores"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * What the seam promises about writes (src/store/store.ts), on both stores. The statements are
 * settings, the simplest group; what is checked is the transaction around them.
 */

describeStores("writes", (open) => {
  test("a write resolves with its body's result once committed, and its after-commit callbacks run after the commit", async () => {
    const store = await open()
    // What a callback reads is what another connection sees: it runs only once the rows are committed.
    let readInCallback: Promise<string | null> | null = null
    const result = await store.write(async (q, tx) => {
      await q.setSetting("admin_token_hash", "h1")
      tx.afterCommit(() => (readInCallback = store.getSetting("admin_token_hash")))
      return 42
    })
    expect(result).toBe(42)
    expect(readInCallback).not.toBeNull()
    expect(await readInCallback!).toBe("h1")
  })

  test("a body that throws rolls back its statements, rejects with its error and runs no after-commit callback", async () => {
    const store = await open()
    await store.write(async (q) => q.setSetting("admin_token_hash", "before"))
    let ran = false
    const failed = store.write(async (q, tx) => {
      await q.setSetting("admin_token_hash", "during")
      tx.afterCommit(() => (ran = true))
      throw new Error("body failed")
    })
    await expect(failed).rejects.toThrow("body failed")
    expect(await store.getSetting("admin_token_hash")).toBe("before")
    expect(ran).toBe(false)
  })

  test("a failing write does not undo a write issued beside it", async () => {
    const store = await open()
    const ok = store.write(async (q) => q.setSetting("admin_token_hash", "kept"))
    const bad = store.write(async () => {
      throw new Error("no")
    })
    await expect(bad).rejects.toThrow("no")
    await ok
    expect(await store.getSetting("admin_token_hash")).toBe("kept")
  })

  test("a before-commit hook joins the transaction of a write and its after-commit work runs once committed", async () => {
    const store = await open()
    let pending: string | null = "from the hook"
    const afterCommit: string[] = []
    store.beforeCommit(async (q, tx) => {
      if (pending === null) return
      const value = pending
      pending = null
      await q.setSetting("admin_token_hash", value)
      tx.afterCommit(() => afterCommit.push(value))
    })
    await store.write(async (q) => void (await q.findAccount("acc_none")))
    expect(await store.getSetting("admin_token_hash")).toBe("from the hook")
    expect(afterCommit).toEqual(["from the hook"])
  })

  test("a hook that throws is rolled back alone and reported; the write and the other hooks commit", async () => {
    const errors: unknown[] = []
    const store = await open({ onCallbackError: (err) => errors.push(err) })
    let failing = true
    store.beforeCommit(async (q) => {
      if (!failing) return
      failing = false
      await q.setSetting("admin_token_hash", "from the failing hook")
      throw new Error("hook failed")
    })
    let second = 0
    store.beforeCommit(async () => void second++)
    await store.write(async (q) =>
      q.insertAccount({ id: "acc_1", name: "A", email: "a@example.com", subscriptionStatus: "active", rateLimitPerMinute: null, createdAtMs: 1, updatedAtMs: 1 }),
    )
    expect((await store.findAccount("acc_1"))?.name).toBe("A")
    expect(await store.getSetting("admin_token_hash")).toBeNull()
    expect(errors.map((e) => (e as Error).message)).toEqual(["hook failed"])
    expect(second).toBeGreaterThanOrEqual(1)
  })

  test("changeVersion moves once a write that names a cached table commits, and not for one that names none", async () => {
    const store = await open()
    const v0 = store.changeVersion()
    await store.write(async (q) => q.setSetting("admin_token_hash", "x"))
    expect(store.changeVersion()).toBe(v0)
    let seenInCallback = ""
    await store.write(
      async (q, tx) => {
        await q.revokeApiKey("key_none", 5)
        tx.afterCommit(() => (seenInCallback = store.changeVersion()))
      },
      { changed: ["api_keys"] },
    )
    expect(store.changeVersion()).not.toBe(v0)
    // Whatever runs after the commit already sees the new version (caches refill fresh).
    expect(seenInCallback).not.toBe(v0)
  })

  test("ping resolves while the database answers", async () => {
    const store = await open()
    await store.ping()
  })
})

describeStores("signals", (open) => {
  /** Resolves with the first payload `store` hears on send_jobs, or null after `waitMs`. */
  const firstSignal = async (store: Awaited<ReturnType<typeof open>>, during: () => Promise<unknown>, waitMs = 1_000) => {
    let heard: (payload: string) => void = () => {}
    const signal = new Promise<string>((resolve) => (heard = resolve))
    const unlisten = await store.listen("send_jobs", (payload) => heard(payload))
    try {
      await during()
      return await Promise.race([signal, Bun.sleep(waitMs).then(() => null)])
    } finally {
      await unlisten()
    }
  }

  test("a committed write's signal reaches the listeners, after the commit", async () => {
    const store = await open()
    const payload = await firstSignal(store, () =>
      store.write(async (q, tx) => {
        await q.setSetting("admin_token_hash", "h")
        tx.notify("send_jobs", "ph_1")
      }),
    )
    expect(payload).toBe("ph_1")
  })

  test("a write that rolls back sends no signal", async () => {
    const store = await open()
    const payload = await firstSignal(
      store,
      () =>
        store
          .write(async (_q, tx) => {
            tx.notify("send_jobs", "ph_1")
            throw new Error("rolled back")
          })
          .catch(() => undefined),
      300,
    )
    expect(payload).toBeNull()
  })

  test("a payload asked for several times in one write is sent once, and each other payload once, in order", async () => {
    const store = await open()
    const heard: string[] = []
    const unlisten = await store.listen("events", (payload) => heard.push(payload))
    await store.write(async (_q, tx) => {
      for (const payload of ["acc_1|test", "acc_1|test", "acc_2|live", "acc_1|test"]) tx.notify("events", payload)
    })
    await store.write(async (_q, tx) => tx.notify("events", "acc_1|test"))
    for (let i = 0; i < 100 && heard.length < 3; i++) await Bun.sleep(10)
    // Time for a duplicate to arrive, if one was sent.
    await Bun.sleep(200)
    await unlisten()
    expect(heard).toEqual(["acc_1|test", "acc_2|live", "acc_1|test"])
  })

  test("after unlisten a listener hears nothing more", async () => {
    const store = await open()
    const heard: string[] = []
    const unlisten = await store.listen("send_jobs", (payload) => heard.push(payload))
    await store.write(async (_q, tx) => tx.notify("send_jobs", "first"))
    for (let i = 0; i < 100 && heard.length === 0; i++) await Bun.sleep(10)
    await unlisten()
    await store.write(async (_q, tx) => tx.notify("send_jobs", "second"))
    await Bun.sleep(200)
    expect(heard).toEqual(["first"])
  })
})
