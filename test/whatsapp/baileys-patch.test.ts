import { describe, expect, setDefaultTimeout, test } from "bun:test"
import * as baileys from "@whiskeysockets/baileys"
import { MemoryAuth } from "../wa-sim/baileys-client"
import { silentLogger } from "../wa-sim/silent-logger"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Opens a real Baileys socket: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * wagate's patch of Baileys 7.0.0-rc14 (patches/, applied by `bun install`; CONTRIBUTING.md
 * says how it is maintained). These tests drive Baileys' own functions, so each one fails on the
 * unpatched package. The end-to-end effect is proven against the simulator in
 * test/wa-sim/receiving-stalls.test.ts and test/e2e-live/stall-*.test.ts.
 */

type OfflineAttrs = { offline?: string }
type Patched = { isOfflineStanza?: (attrs: OfflineAttrs) => boolean; handleIdentityChange: typeof baileys.handleIdentityChange }
const patched = baileys as unknown as Patched

describe("Baileys patch: the offline attribute (WhiskeySockets/Baileys#2810)", () => {
  test("offline=\"0\" and an absent attribute mean live; any other value means offline", () => {
    expect(typeof patched.isOfflineStanza).toBe("function")
    const isOffline = patched.isOfflineStanza!
    expect(isOffline({})).toBe(false)
    expect(isOffline({ offline: "" })).toBe(false)
    expect(isOffline({ offline: "0" })).toBe(false)
    expect(isOffline({ offline: "1" })).toBe(true)
    expect(isOffline({ offline: "3" })).toBe(true)
  })

  test("an identity change marked offline=\"0\" refreshes the session like a live one", async () => {
    const refreshed: string[] = []
    const identity = (offline: string | undefined) => ({
      tag: "notification",
      attrs: { from: `1555000${offline ?? "x"}@s.whatsapp.net`, type: "encrypt", ...(offline === undefined ? {} : { offline }) },
      content: [{ tag: "identity", attrs: {}, content: new Uint8Array(0) }],
    })
    const ctx = {
      meId: "15550009999@s.whatsapp.net",
      meLid: undefined,
      validateSession: async () => ({ exists: true }),
      assertSessions: async (jids: string[]) => {
        refreshed.push(...jids)
        return true
      },
      debounceCache: new Map<string, boolean>(),
      logger: silentLogger,
    }
    const run = (offline: string | undefined) =>
      patched.handleIdentityChange(identity(offline) as never, ctx as unknown as Parameters<typeof baileys.handleIdentityChange>[1])
    expect((await run("0")).action).toBe("session_refreshed")
    expect((await run(undefined)).action).toBe("session_refreshed")
    expect((await run("1")).action).toBe("skipped_offline")
    expect(refreshed).toHaveLength(2)
  })
})

describe("Baileys patch: a socket releases its transaction storage when it ends (WhiskeySockets/Baileys#2806, #2807)", () => {
  test("after end() the socket's key store runs no transaction context any more", async () => {
    // A port nothing listens on: the socket fails to connect and ends itself.
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("no") })
    const port = server.port
    await server.stop(true)
    const auth = new MemoryAuth()
    const sock = baileys.makeWASocket({ auth: auth.state, logger: silentLogger, waWebSocketUrl: `ws://127.0.0.1:${port}/ws`, connectTimeoutMs: 2_000 })
    const keys = sock.authState.keys as baileys.SignalKeyStoreWithTransaction
    // While the socket lives, work inside a transaction sees its context.
    expect(await keys.transaction(async () => keys.isInTransaction(), "probe")).toBe(true)
    const closed = new Promise<void>((resolve) => sock.ev.on("connection.update", (u) => u.connection === "close" && resolve()))
    await sock.end(undefined)
    await closed
    // Ended: the storage is disabled and never entered again, so the runtime can let it go.
    expect(await keys.transaction(async () => keys.isInTransaction(), "probe")).toBe(false)
  })
})
