import { storeOver } from "../helpers/sqlite-store"
/*
 * docs/live-whatsapp.md, WhatsApp Web version: WAGATE_WA_VERSION=auto looks the current version
 * up when a phone connects (at most 3 s) and falls back to the version built into Baileys; an
 * explicit version wins. The lookup is injected here: the real one asks web.whatsapp.com.
 */
import { describe, expect, test } from "bun:test"
import { createServer } from "node:net"
import { DEFAULT_CONNECTION_CONFIG } from "@whiskeysockets/baileys"
import { createLogger, type Logger } from "../../src/lib/logger"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { createWriter } from "../../src/store/sqlite/writer"
import { createBaileysGateway } from "../../src/whatsapp/baileys/gateway"
import {
  baileysVersionLookup,
  createWaVersionChooser,
  FALLBACK_VERSION_TTL_MS,
  lookupFailureReason,
  LOOKED_UP_VERSION_TTL_MS,
  WA_VERSION_LOOKUP_TIMEOUT_MS,
  type WaVersion,
  type WaVersionLookup,
} from "../../src/whatsapp/baileys/wa-version"
import type { ConnectionFailure } from "../../src/whatsapp/failures"
import type { SessionEvents } from "../../src/whatsapp/gateway"
import { TEST_EPOCH_MS, TestClock } from "../helpers/test-clock"

const BUILT_IN: WaVersion = [2, 3000, 1000]

/** A logger that keeps info and warn lines (a warn line carries its level). */
function infoLog() {
  const lines: { msg: string; fields?: Record<string, unknown>; level?: "warn" }[] = []
  const quiet = () => {}
  const logger: Logger = {
    debug: quiet,
    info: (msg, fields) => void lines.push({ msg, fields }),
    warn: (msg, fields) => void lines.push({ msg, fields, level: "warn" }),
    error: quiet,
  }
  return { logger, lines }
}

function chooser(setting: WaVersion | "auto", lookup: WaVersionLookup | null, clock = new TestClock()) {
  const { logger, lines } = infoLog()
  const choose = createWaVersionChooser({ setting, lookup, builtIn: async () => BUILT_IN, clock, logger })
  return { choose, lines, clock }
}

/** Lets the chooser's promise chain run. */
const flush = () => new Promise((resolve) => setImmediate(resolve))

describe("choosing the WhatsApp Web version", () => {
  test("an explicit version wins: no lookup at all", async () => {
    let lookups = 0
    const { choose, lines } = chooser([2, 3000, 5], async () => {
      lookups++
      return [2, 3000, 9]
    })
    expect(await choose()).toEqual({ version: [2, 3000, 5], source: "configured" })
    expect(lookups).toBe(0)
    expect(lines).toEqual([])
  })

  test("auto uses the looked-up version, logs it at info, and reuses it for an hour", async () => {
    let lookups = 0
    const { choose, lines, clock } = chooser("auto", async () => {
      lookups++
      return [2, 3000, 1023456789 + lookups]
    })
    expect(await choose()).toEqual({ version: [2, 3000, 1023456790], source: "looked_up" })
    expect(lines).toEqual([{ msg: "using the current WhatsApp Web version", fields: { waVersion: "2.3000.1023456790" } }])
    clock.advance(LOOKED_UP_VERSION_TTL_MS - 1)
    expect((await choose()).version).toEqual([2, 3000, 1023456790])
    clock.advance(1)
    expect((await choose()).version).toEqual([2, 3000, 1023456791])
    expect(lookups).toBe(2)
  })

  test("connects at the same time share one lookup", async () => {
    let lookups = 0
    const { choose } = chooser("auto", async () => {
      lookups++
      return [2, 3000, 7]
    })
    const chosen = await Promise.all([choose(), choose(), choose()])
    expect(chosen.map((c) => c.version)).toEqual([[2, 3000, 7], [2, 3000, 7], [2, 3000, 7]])
    expect(lookups).toBe(1)
  })

  test.each([
    { name: "a failed lookup", lookup: (async () => Promise.reject(new Error("getaddrinfo ENOTFOUND web.whatsapp.com"))) as WaVersionLookup, cause: "ENOTFOUND" },
    { name: "an answer that is not a version", lookup: (async () => ["2", "x"] as unknown as WaVersion) as WaVersionLookup, cause: "not a version" },
  ])("$name falls back to Baileys' version, says why at warn, and asks again after 5 minutes", async ({ lookup, cause }) => {
    let lookups = 0
    const { choose, lines, clock } = chooser("auto", (signal) => {
      lookups++
      return lookup(signal)
    })
    expect(await choose()).toEqual({ version: BUILT_IN, source: "built_in" })
    expect(lines[0]!.msg).toBe("looking up the current WhatsApp Web version failed; using the version built into Baileys")
    expect(lines[0]!.level).toBe("warn")
    expect(lines[0]!.fields!.waVersion).toBe("2.3000.1000")
    expect(lines[0]!.fields!.reason).toContain(cause)
    clock.advance(FALLBACK_VERSION_TTL_MS - 1)
    await choose()
    expect(lookups).toBe(1)
    clock.advance(1)
    await choose()
    expect(lookups).toBe(2)
  })

  test("a failed lookup is one warn line with the reason and its cause: no stack, no node_modules path", async () => {
    const refused = Object.assign(new Error("Unable to connect. Is the computer able to access the url?"), { code: "ConnectionRefused" })
    const failure = new Error("fetch failed", { cause: refused })
    failure.stack = `Error: fetch failed\n    at fetchLatestWaWebVersion (/srv/wagate/node_modules/@whiskeysockets/baileys/lib/Utils/generics.js:226:32)`
    const written: string[] = []
    const logger = createLogger({ level: "debug", format: "json", nowIso: () => "2026-01-05T00:00:00.000Z", write: (line) => void written.push(line) })
    const choose = createWaVersionChooser({ setting: "auto", lookup: async () => Promise.reject(failure), builtIn: async () => BUILT_IN, clock: new TestClock(), logger })
    expect(await choose()).toEqual({ version: BUILT_IN, source: "built_in" })
    expect(written).toHaveLength(1)
    expect(JSON.parse(written[0]!)).toEqual({
      time: "2026-01-05T00:00:00.000Z",
      level: "warn",
      msg: "looking up the current WhatsApp Web version failed; using the version built into Baileys",
      waVersion: "2.3000.1000",
      reason: "fetch failed: Unable to connect. Is the computer able to access the url? (ConnectionRefused)",
    })
    expect(written[0]).not.toContain("node_modules")
    expect(written[0]).not.toContain("stack")
  })

  test.each([
    { name: "Baileys' plain { message } answer", err: { message: "Could not find client revision in the fetched content" }, reason: "Could not find client revision in the fetched content" },
    { name: "a message naming a file under node_modules", err: new Error("Cannot find module /srv/x/node_modules/y/index.js"), reason: "Cannot find module …" },
    { name: "a multi-line message", err: new Error("first line\n    at somewhere (/srv/x.js:1:1)"), reason: "first line" },
  ])("the reason is one bounded line: $name", ({ err, reason }) => {
    expect(lookupFailureReason(err)).toBe(reason)
  })

  test("the reason is cut to 256 characters, with control characters escaped", () => {
    const reason = lookupFailureReason(new Error(`\u0007${"x".repeat(1_000)}`))
    expect(reason.length).toBeLessThanOrEqual(256)
    expect(reason).not.toContain("\u0007")
    expect(reason).toStartWith("\\x07xxx")
  })

  test(`a lookup that does not answer is aborted after ${WA_VERSION_LOOKUP_TIMEOUT_MS} ms and the connect goes on with Baileys' version`, async () => {
    let aborted = false
    const { choose, clock } = chooser("auto", (signal) => {
      signal.addEventListener("abort", () => (aborted = true))
      return new Promise(() => {})
    })
    let chosen: unknown = null
    void choose().then((c) => (chosen = c))
    await flush()
    clock.advance(WA_VERSION_LOOKUP_TIMEOUT_MS - 1)
    await flush()
    expect(chosen).toBeNull()
    clock.advance(1)
    await flush()
    expect(chosen).toEqual({ version: BUILT_IN, source: "built_in" })
    expect(aborted).toBe(true)
  })

  test("without a lookup (the WebSocket is not WhatsApp's) auto is Baileys' version, for good", async () => {
    const { choose, lines, clock } = chooser("auto", null)
    expect(await choose()).toEqual({ version: BUILT_IN, source: "built_in" })
    clock.advance(7 * 86_400_000)
    await choose()
    expect(lines).toHaveLength(1)
  })

  test("Baileys' lookup is used only for a socket to web.whatsapp.com", () => {
    const never = () => Promise.reject(new Error("not loaded in this test"))
    expect(baileysVersionLookup("wss://web.whatsapp.com/ws/chat", never)).toBeFunction()
    expect(baileysVersionLookup("ws://127.0.0.1:4455/ws/chat", never)).toBeNull()
    expect(baileysVersionLookup("wss://wa-proxy.example/ws/chat", never)).toBeNull()
  })
})

describe("the version through the Baileys adapter", () => {
  async function closedPort(): Promise<number> {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as { port: number }).port
    await new Promise<void>((resolve) => server.close(() => resolve()))
    return port
  }

  async function connectWith(waVersionLookup: WaVersionLookup, clock: TestClock) {
    const db = openDatabase(":memory:")
    migrate(db, TEST_EPOCH_MS)
    const gateway = createBaileysGateway({
      store: storeOver(db),
      clock,
      logger: infoLog().logger,
      wsUrl: `ws://127.0.0.1:${await closedPort()}/ws/chat`,
      waVersion: "auto",
      waVersionLookup,
    })
    const announced: string[] = []
    const ended = new Promise<ConnectionFailure | null>((resolve) => {
      const events: SessionEvents = {
        connecting: ({ waVersion }) => void announced.push(waVersion),
        qr() {},
        pairingCode() {},
        scanned() {},
        connected() {},
        disconnected: ({ failure }) => resolve(failure),
        partAcked() {},
        partRejected() {},
        receipt() {},
        inbound() {},
      }
      gateway.session("ph_1", events).connect({ method: "qr" })
    })
    return { announced, ended }
  }

  test("a connect announces the looked-up version, and its failure names it", async () => {
    const { announced, ended } = await connectWith(async () => [2, 3000, 1023456789], new TestClock())
    expect((await ended)?.waVersion).toBe("2.3000.1023456789")
    expect(announced).toEqual(["2.3000.1023456789"])
  })

  test("a lookup that hangs delays the connect by the timeout only, then Baileys' built-in version is announced", async () => {
    const clock = new TestClock()
    const { announced, ended } = await connectWith(() => new Promise(() => {}), clock)
    for (let i = 0; i < 20; i++) await flush()
    expect(announced).toEqual([])
    clock.advance(WA_VERSION_LOOKUP_TIMEOUT_MS)
    const builtIn = DEFAULT_CONNECTION_CONFIG.version.join(".")
    expect((await ended)?.waVersion).toBe(builtIn)
    expect(announced).toEqual([builtIn])
  })
})
