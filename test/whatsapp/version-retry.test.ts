import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import type { Logger } from "../../src/lib/logger"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { clientExpirationOf, ExpirationNotices, type IbNode } from "../../src/whatsapp/baileys/client-expiration"
import { createBaileysGateway } from "../../src/whatsapp/baileys/gateway"
import { createWaVersionChooser, formatWaVersion, urlVersionLookup, type WaVersion, type WaVersionLookup } from "../../src/whatsapp/baileys/wa-version"
import type { ConnectionFailure } from "../../src/whatsapp/failures"
import type { DisconnectReason, SessionEvents } from "../../src/whatsapp/gateway"
import { waVersionProbe, WA_VERSION_LOOKUP_URL } from "../../src/whatsapp/baileys/version-probe"
import { storeOver } from "../helpers/sqlite-store"
import { TEST_EPOCH_MS, TestClock } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { startWaSim, type WaSim } from "../wa-sim"

/*
 * docs/live-whatsapp.md § "Retired versions": WhatsApp refuses a retired WhatsApp Web version with
 * 405 at the handshake (WhiskeySockets/Baileys#2731); wagate looks the version up again, bypassing
 * its cache, and connects once more with a newer one before it reports `outdated_version`. The
 * lookup is injected; the simulator refuses the retired versions (test/wa-sim/client-versions.ts).
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const OLD: WaVersion = [2, 3000, 1]
const NEW: WaVersion = [2, 3000, 2]
const BUILT_IN: WaVersion = [2, 3000, 1000]

function recordingLogger() {
  const lines: { level: "info" | "warn" | "error"; msg: string; fields?: Record<string, unknown> }[] = []
  const logger: Logger = {
    debug() {},
    info: (msg, fields) => void lines.push({ level: "info", msg, fields }),
    warn: (msg, fields) => void lines.push({ level: "warn", msg, fields }),
    error: (msg, fields) => void lines.push({ level: "error", msg, fields }),
  }
  return { logger, lines }
}

/** A lookup that answers the given versions in turn (an Error rejects), counting its calls. */
function scriptedLookup(...answers: (WaVersion | Error)[]) {
  const calls = { n: 0 }
  const lookup: WaVersionLookup = async () => {
    const answer = answers[Math.min(calls.n++, answers.length - 1)]!
    if (answer instanceof Error) throw answer
    return answer
  }
  return { lookup, calls }
}

describe("looking the version up again after a 405 (createWaVersionChooser().refresh)", () => {
  test.each([
    { name: "an explicit WAGATE_WA_VERSION is never replaced", setting: OLD, answers: [NEW], expected: null, lookups: 0 },
    { name: "a newer version from the second lookup is tried", setting: "auto" as const, answers: [OLD, NEW], expected: NEW, lookups: 2 },
    { name: "the same version again is not tried twice", setting: "auto" as const, answers: [OLD, OLD], expected: null, lookups: 2 },
    { name: "a failed second lookup leaves nothing to try", setting: "auto" as const, answers: [OLD, new Error("getaddrinfo ENOTFOUND web.whatsapp.com")], expected: null, lookups: 2 },
  ])("$name", async ({ setting, answers, expected, lookups }) => {
    const { lookup, calls } = scriptedLookup(...answers)
    const choose = createWaVersionChooser({ setting, lookup, builtIn: async () => BUILT_IN, clock: new TestClock(), logger: recordingLogger().logger })
    const first = await choose()
    const refreshed = await choose.refresh(first.version)
    expect(refreshed?.version ?? null).toEqual(expected)
    expect(calls.n).toBe(lookups)
  })

  test("without a lookup (the WebSocket is not WhatsApp's and no WAGATE_WA_VERSION_URL) there is nothing to try", async () => {
    const choose = createWaVersionChooser({ setting: "auto", lookup: null, builtIn: async () => BUILT_IN, clock: new TestClock(), logger: recordingLogger().logger })
    expect(await choose.refresh((await choose()).version)).toBeNull()
  })

  test("the second lookup bypasses the cached version, and later connects announce what it found", async () => {
    const { lookup, calls } = scriptedLookup(OLD, NEW)
    const choose = createWaVersionChooser({ setting: "auto", lookup, builtIn: async () => BUILT_IN, clock: new TestClock(), logger: recordingLogger().logger })
    expect((await choose()).version).toEqual(OLD)
    expect((await choose()).version).toEqual(OLD)
    expect(calls.n).toBe(1)
    expect((await choose.refresh(OLD))?.version).toEqual(NEW)
    expect((await choose()).version).toEqual(NEW)
    expect(calls.n).toBe(2)
  })

  test("phones refused at once share one lookup; a phone refused after another's refresh uses its answer without asking", async () => {
    const { lookup, calls } = scriptedLookup(OLD, NEW, [2, 3000, 3])
    const choose = createWaVersionChooser({ setting: "auto", lookup, builtIn: async () => BUILT_IN, clock: new TestClock(), logger: recordingLogger().logger })
    await choose()
    const together = await Promise.all([choose.refresh(OLD), choose.refresh(OLD), choose.refresh(OLD)])
    expect(together.map((c) => c?.version)).toEqual([NEW, NEW, NEW])
    expect((await choose.refresh(OLD))?.version).toEqual(NEW)
    expect(calls.n).toBe(2)
  })

  test("a failed second lookup says why at info (the final refusal is the warn line)", async () => {
    const { lookup } = scriptedLookup(OLD, new Error("getaddrinfo ENOTFOUND web.whatsapp.com"))
    const { logger, lines } = recordingLogger()
    const choose = createWaVersionChooser({ setting: "auto", lookup, builtIn: async () => BUILT_IN, clock: new TestClock(), logger })
    await choose()
    await choose.refresh(OLD)
    expect(lines.at(-1)).toEqual({ level: "info", msg: "looking the WhatsApp Web version up again after a refusal failed", fields: { reason: "getaddrinfo ENOTFOUND web.whatsapp.com" } })
  })
})

describe("WAGATE_WA_VERSION_URL (urlVersionLookup)", () => {
  let sim: WaSim | null = null
  afterEach(async () => {
    await sim?.stop()
    sim = null
  }, SLOW_HOOK_TIMEOUT_MS)

  test("reads the build from a page shaped like sw.js as 2.3000.<build>; a 404 or a page without it rejects with the URL", async () => {
    sim = await startWaSim({ advSecretRotation: false })
    const lookup = urlVersionLookup(sim.versionUrl)
    await expect(lookup(new AbortController().signal)).rejects.toThrow(`${sim.versionUrl} answered HTTP 404`)
    sim.versions.currentBuild = 1_031_234_567
    expect(await lookup(new AbortController().signal)).toEqual([2, 3000, 1_031_234_567])
  })

  test("a page larger than 4 MiB is refused, not read into memory", async () => {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(`${"x".repeat(5 * 1024 * 1024)}"client_revision":1`) })
    try {
      await expect(urlVersionLookup(`http://127.0.0.1:${server.port}/sw.js`)(new AbortController().signal)).rejects.toThrow("the version page is larger than 4194304 bytes")
    } finally {
      await server.stop(true)
    }
  })

  test("connects and the doctor ask the configured page whatever the socket; unset, only a socket to web.whatsapp.com is looked up", () => {
    const configured = waVersionProbe("ws://127.0.0.1:4455/ws/chat", "http://127.0.0.1:4456/sw.js")
    expect([configured.lookup === null, configured.lookupUrl]).toEqual([false, "http://127.0.0.1:4456/sw.js"])
    const unset = waVersionProbe("ws://127.0.0.1:4455/ws/chat")
    expect([unset.lookup, unset.lookupUrl]).toEqual([null, WA_VERSION_LOOKUP_URL])
  })
})

describe("<ib><client_expiration> (client-expiration.ts)", () => {
  const ib = (...children: IbNode[]): IbNode => ({ tag: "ib", attrs: { from: "s.whatsapp.net" }, content: children })
  test.each([
    { name: "unix seconds become ms", node: ib({ tag: "client_expiration", attrs: { t: "1796860800" } }), expected: 1_796_860_800_000 },
    { name: "another <ib> child is not an expiry", node: ib({ tag: "offline", attrs: { count: "0" } }), expected: null },
    { name: "a t that is not a number is ignored", node: ib({ tag: "client_expiration", attrs: { t: "soon" } }), expected: null },
    { name: "a missing t is ignored", node: ib({ tag: "client_expiration", attrs: {} }), expected: null },
    { name: "t=0 is ignored", node: ib({ tag: "client_expiration", attrs: { t: "0" } }), expected: null },
    { name: "an <ib> without children is ignored", node: { tag: "ib", attrs: {} }, expected: null },
  ])("$name", ({ node, expected }) => {
    expect(clientExpirationOf(node)).toBe(expected)
  })

  test("a phone's notice counts once per distinct date; another phone's separately", () => {
    const notices = new ExpirationNotices()
    const day = Date.UTC(2026, 11, 10)
    expect([notices.firstTime("ph_1", day), notices.firstTime("ph_1", day + 3_600_000), notices.firstTime("ph_2", day)]).toEqual([true, false, true])
    expect(notices.firstTime("ph_1", day + 86_400_000)).toBe(true)
  })
})

describe("a 405 at the handshake through the Baileys adapter, against the simulator", () => {
  let sim: WaSim | null = null
  afterEach(async () => {
    await sim?.stop()
    sim = null
  }, SLOW_HOOK_TIMEOUT_MS)

  /** Opens one pairing session with `setting` and `lookup`; resolves on its first QR or its end. */
  async function connect(setting: WaVersion | "auto", lookup: WaVersionLookup, retired: WaVersion[]) {
    sim = await startWaSim({ advSecretRotation: false, retiredVersions: retired.map(formatWaVersion) })
    const db = openDatabase(":memory:")
    migrate(db, TEST_EPOCH_MS)
    const { logger, lines } = recordingLogger()
    const gateway = createBaileysGateway({ store: storeOver(db), clock: new TestClock(), logger, wsUrl: sim.wsUrl, waVersion: setting, waVersionLookup: lookup })
    const announced: string[] = []
    let session: ReturnType<typeof gateway.session> | null = null
    const outcome = await new Promise<{ qr: true } | { reason: DisconnectReason; final: boolean; failure: ConnectionFailure | null }>((resolve) => {
      const events: SessionEvents = {
        connecting: ({ waVersion }) => void announced.push(waVersion),
        qr: () => resolve({ qr: true }),
        pairingCode() {},
        scanned() {},
        connected() {},
        disconnected: (info) => resolve(info),
        partAcked() {},
        partRejected() {},
        receipt() {},
        inbound() {},
      }
      session = gateway.session("ph_1", events)
      session.connect({ method: "qr" })
    })
    await session!.close()
    return { outcome, announced, warnings: lines.filter((l) => l.level === "warn") }
  }

  test("a retired version is refused; the second lookup finds a newer one, the connect is made again with it and the QR is shown; one warn line", async () => {
    const { lookup, calls } = scriptedLookup(OLD, NEW)
    const { outcome, announced, warnings } = await connect("auto", lookup, [OLD])
    expect(outcome).toEqual({ qr: true })
    expect(announced).toEqual(["2.3000.1", "2.3000.2"])
    expect(calls.n).toBe(2)
    expect(warnings.map((w) => w.msg)).toEqual(["WhatsApp refused WhatsApp Web 2.3000.1 as outdated (405); connecting once more with 2.3000.2, looked up again"])
  })

  test.each<{ name: string; setting: WaVersion | "auto"; answers: WaVersion[]; retired: WaVersion[]; announced: string[]; lookups: number; refused: string }>([
    { name: "the lookup still names the retired version", setting: "auto", answers: [OLD, OLD], retired: [OLD], announced: ["2.3000.1"], lookups: 2, refused: "2.3000.1" },
    { name: "the newer version is refused too: one retry only", setting: "auto", answers: [OLD, NEW], retired: [OLD, NEW], announced: ["2.3000.1", "2.3000.2"], lookups: 2, refused: "2.3000.2" },
    { name: "WAGATE_WA_VERSION names the retired version", setting: OLD, answers: [NEW], retired: [OLD], announced: ["2.3000.1"], lookups: 0, refused: "2.3000.1" },
  ])("$name: outdated_version, final, naming the version refused", async ({ setting, answers, retired, announced, lookups, refused }) => {
    const { lookup, calls } = scriptedLookup(...answers)
    const result = await connect(setting, lookup, retired)
    expect(result.outcome).toMatchObject({ reason: "outdated_version", final: true, failure: { code: "outdated_version", waVersion: refused } })
    expect(result.announced).toEqual(announced)
    expect(calls.n).toBe(lookups)
  })
})

describe("<ib><client_expiration> through the Baileys adapter, against the simulator", () => {
  let sim: WaSim | null = null
  afterEach(async () => {
    await sim?.stop()
    sim = null
  }, SLOW_HOOK_TIMEOUT_MS)

  test("each login's notice is reported with the version it names; the warn line comes once per phone and date, with the date in ISO form", async () => {
    const first = Date.UTC(2026, 11, 10)
    sim = await startWaSim({ advSecretRotation: false, clientExpiresAtMs: first })
    const db = openDatabase(":memory:")
    migrate(db, TEST_EPOCH_MS)
    const { logger, lines } = recordingLogger()
    const gateway = createBaileysGateway({ store: storeOver(db), clock: new TestClock(), logger, wsUrl: sim.wsUrl, waVersion: [2, 3000, 7] })
    const expiries: { expiresAtMs: number; waVersion: string }[] = []

    /** One session until it connects (or, when pairing, until WhatsApp asks for a fresh socket); returns it. */
    async function session(pairing: boolean) {
      let qr: string | undefined
      let opened!: ReturnType<typeof gateway.session>
      await new Promise<void>((resolve, reject) => {
        const events: SessionEvents = {
          connecting() {},
          qr: (shown) => void (qr = shown),
          pairingCode() {},
          scanned() {},
          connected: () => resolve(),
          disconnected: ({ reason }) => (reason === "restart_required" && pairing ? resolve() : reject(new Error(`closed: ${reason}`))),
          partAcked() {},
          partRejected() {},
          receipt() {},
          inbound() {},
          clientExpiration: (info) => void expiries.push(info),
        }
        opened = gateway.session("ph_1", events)
        opened.connect({ method: "qr" })
        if (pairing) sim!.primary("+15550091111").scanShownQr(async () => qr).catch(reject)
      })
      return opened
    }
    const warnings = () => lines.filter((l) => l.level === "warn" && l.msg.startsWith("WhatsApp says")).map((l) => [l.msg, l.fields?.expiresAt])
    const notices = async (n: number) => {
      for (let i = 0; i < 500 && expiries.length < n; i++) await Bun.sleep(10)
      expect(expiries).toHaveLength(n)
    }

    await session(true)
    await (await session(false)).close()
    await notices(1)
    await (await session(false)).close()
    await notices(2)
    sim.versions.expiresAtMs = first + 86_400_000
    await (await session(false)).close()
    await notices(3)

    expect(expiries).toEqual([
      { expiresAtMs: first, waVersion: "2.3000.7" },
      { expiresAtMs: first, waVersion: "2.3000.7" },
      { expiresAtMs: first + 86_400_000, waVersion: "2.3000.7" },
    ])
    const sentence = (day: string) =>
      `WhatsApp says this client version (WhatsApp Web 2.3000.7) expires on ${day}; upgrade wagate or set WAGATE_WA_VERSION to a current version before then`
    expect(warnings()).toEqual([
      [sentence("2026-12-10"), "2026-12-10T00:00:00.000Z"],
      [sentence("2026-12-11"), "2026-12-11T00:00:00.000Z"],
    ])
  })
})
