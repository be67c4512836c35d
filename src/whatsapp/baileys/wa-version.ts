import type { Clock } from "../../lib/clock"
import type { Logger } from "../../lib/logger"
import { boundedOutsideText } from "../../lib/outside-text"
import type { BaileysModule } from "./auth-state"
import { readAtMost } from "../../lib/streams"

/** A WhatsApp Web version as [major, minor, patch]. */
export type WaVersion = readonly [number, number, number]

/** Asks for the current WhatsApp Web version; rejects when it cannot tell. Aborted on timeout. */
export type WaVersionLookup = (signal: AbortSignal) => Promise<WaVersion>

/** How long a connect waits for the version lookup before it falls back to Baileys' version. */
export const WA_VERSION_LOOKUP_TIMEOUT_MS = 3_000
/** A looked-up version is reused this long: WhatsApp Web ships a few times a week. */
export const LOOKED_UP_VERSION_TTL_MS = 60 * 60_000
/** After a failed lookup, connects use the fallback this long before asking again. */
export const FALLBACK_VERSION_TTL_MS = 5 * 60_000

/** The version a connect announces, and where it came from. */
export interface ChosenWaVersion {
  version: WaVersion
  source: "configured" | "looked_up" | "built_in"
}

/** `2.3000.1023456789`. */
export function formatWaVersion(version: WaVersion): string {
  return version.join(".")
}

/** The host Baileys' lookup asks; only a socket to the same host gets a looked-up version. */
const WHATSAPP_WEB_HOST = "web.whatsapp.com"

/**
 * The lookup Baileys ships (it reads the version from web.whatsapp.com), or null when the
 * WebSocket points elsewhere: a simulator or a test server must not make wagate reach out to
 * WhatsApp, and WhatsApp's current version says nothing about what another server accepts.
 */
export function baileysVersionLookup(wsUrl: string, baileys: () => Promise<BaileysModule>): WaVersionLookup | null {
  if (new URL(wsUrl).hostname !== WHATSAPP_WEB_HOST) return null
  return async (signal) => {
    const result = await (await baileys()).fetchLatestWaWebVersion({ signal })
    // Baileys answers a failure with an Error, or with a plain `{ message }` when the page had no version.
    if (!result.isLatest) throw result.error instanceof Error ? result.error : new Error(lookupFailureReason(result.error ?? "no version in the answer"))
    return result.version as unknown as WaVersion
  }
}

/** The version each connect announces, and a second look after WhatsApp refused one (405). */
export interface WaVersionChooser {
  (): Promise<ChosenWaVersion>
  /**
   * WhatsApp refused `rejected` as outdated (405 at the handshake): looks the version up again,
   * bypassing the cache, and returns it when it differs, for one more connect; null when there is
   * nothing better to try (an explicit setting, no lookup, a failed lookup or the same version).
   */
  refresh(rejected: WaVersion): Promise<ChosenWaVersion | null>
}

/**
 * Chooses the version each connect announces (docs/live-whatsapp.md § "WhatsApp Web version"): an
 * explicit setting always wins; `auto` looks the current version up (at most
 * WA_VERSION_LOOKUP_TIMEOUT_MS, shared by concurrent connects, cached) and falls back to the
 * version built into Baileys. Each new choice is logged at info, a failed lookup once at warn.
 */
export function createWaVersionChooser(options: {
  setting: WaVersion | "auto"
  lookup: WaVersionLookup | null
  builtIn: () => Promise<WaVersion>
  clock: Clock
  logger: Logger
  timeoutMs?: number
}): WaVersionChooser {
  const { setting, lookup, clock, logger } = options
  const timeoutMs = options.timeoutMs ?? WA_VERSION_LOOKUP_TIMEOUT_MS
  let cached: { chosen: ChosenWaVersion; untilMs: number } | null = null
  let inFlight: Promise<ChosenWaVersion> | null = null
  let refreshing: Promise<WaVersion | null> | null = null

  async function choose(): Promise<ChosenWaVersion> {
    if (setting !== "auto") return { version: setting, source: "configured" }
    if (!lookup) {
      const chosen: ChosenWaVersion = { version: await options.builtIn(), source: "built_in" }
      logger.info("using the WhatsApp Web version built into Baileys (the WebSocket URL is not WhatsApp's, so none is looked up)", {
        waVersion: formatWaVersion(chosen.version),
      })
      return chosen
    }
    try {
      const version = await withTimeout(lookup, timeoutMs, clock)
      logger.info("using the current WhatsApp Web version", { waVersion: formatWaVersion(version) })
      return { version, source: "looked_up" }
    } catch (err) {
      const chosen: ChosenWaVersion = { version: await options.builtIn(), source: "built_in" }
      // One warn line with the reason only: the error's stack would be Baileys' and Bun's
      // internals (node_modules paths, minified source), which tell the operator nothing.
      logger.warn("looking up the current WhatsApp Web version failed; using the version built into Baileys", {
        waVersion: formatWaVersion(chosen.version),
        reason: lookupFailureReason(err),
      })
      return chosen
    }
  }

  /** A fresh lookup, shared by the phones refused at once; null when it fails (the reason at info). */
  function lookUpAgain(run: WaVersionLookup): Promise<WaVersion | null> {
    refreshing ??= withTimeout(run, timeoutMs, clock)
      .then((version): WaVersion => {
        cached = { chosen: { version, source: "looked_up" }, untilMs: clock.nowMs() + LOOKED_UP_VERSION_TTL_MS }
        return version
      })
      .catch((err: unknown) => {
        logger.info("looking the WhatsApp Web version up again after a refusal failed", { reason: lookupFailureReason(err) })
        return null
      })
      .finally(() => {
        refreshing = null
      })
    return refreshing
  }

  const chooseCached = async (): Promise<ChosenWaVersion> => {
    if (setting !== "auto") return choose()
    if (cached && clock.nowMs() < cached.untilMs) return cached.chosen
    inFlight ??= choose().then((chosen) => {
      const ttlMs = chosen.source === "looked_up" ? LOOKED_UP_VERSION_TTL_MS : FALLBACK_VERSION_TTL_MS
      // Without a lookup there is nothing to ask again: the choice stands for good.
      cached = { chosen, untilMs: lookup ? clock.nowMs() + ttlMs : Number.POSITIVE_INFINITY }
      inFlight = null
      return chosen
    })
    return inFlight
  }

  return Object.assign(chooseCached, {
    async refresh(rejected: WaVersion): Promise<ChosenWaVersion | null> {
      if (setting !== "auto" || !lookup) return null
      const same = (version: WaVersion) => formatWaVersion(version) === formatWaVersion(rejected)
      // Another phone's refusal may already have brought a newer version: no second lookup.
      const known = cached?.chosen.source === "looked_up" && clock.nowMs() < cached.untilMs ? cached.chosen.version : null
      const version = known && !same(known) ? known : await lookUpAgain(lookup)
      return version && !same(version) ? { version, source: "looked_up" } : null
    },
  })
}

/** web.whatsapp.com/sw.js is a few hundred KiB; a page beyond this is not one. */
const VERSION_PAGE_MAX_BYTES = 4 * 1024 * 1024

/** The body as text, refusing one longer than `maxBytes` (the stream is cancelled there). */
async function boundedText(response: Response, maxBytes: number): Promise<string> {
  const { bytes, exceeded } = response.body ? await readAtMost(response.body, maxBytes) : { bytes: new Uint8Array(0), exceeded: false }
  if (exceeded) throw new Error(`the version page is larger than ${maxBytes} bytes`)
  return new TextDecoder().decode(bytes)
}

/** The text WhatsApp Web's service worker names its build in (`"client_revision":1023456789`). */
const CLIENT_REVISION = /\\?"client_revision\\?":\s*(\d+)/

/**
 * A lookup that reads the version from `pageUrl` (WAGATE_WA_VERSION_URL): a page shaped like
 * web.whatsapp.com/sw.js, whose `client_revision` is the build, announced as 2.3000.<build> as
 * Baileys' own lookup does. Asked whatever the WebSocket URL: the operator named it.
 */
export function urlVersionLookup(pageUrl: string): WaVersionLookup {
  return async (signal) => {
    const response = await fetch(pageUrl, { signal })
    if (!response.ok) throw new Error(`${pageUrl} answered HTTP ${response.status}`)
    const match = CLIENT_REVISION.exec(await boundedText(response, VERSION_PAGE_MAX_BYTES))
    if (!match) throw new Error(`no client_revision in the answer of ${pageUrl}`)
    return [2, 3000, Number(match[1])]
  }
}

/**
 * Why a lookup failed, in one bounded line: the error's message and its causes' (a refused or
 * unresolved connection is in the cause of `fetch`'s error), each with its code, never a stack and
 * never a file path.
 */
export function lookupFailureReason(err: unknown): string {
  const parts: string[] = []
  let current: unknown = err
  for (let depth = 0; depth < 3 && current !== null && current !== undefined; depth++) {
    const fields = typeof current === "object" ? (current as { message?: unknown; code?: unknown; cause?: unknown }) : {}
    const message = (fields.message !== undefined ? String(fields.message) : String(current)).split("\n")[0]!.trim()
    const code = typeof fields.code === "string" && !message.includes(fields.code) ? ` (${fields.code})` : ""
    if (message !== "" || code !== "") parts.push(`${message}${code}`.trim())
    current = fields.cause
  }
  const reason = parts.join(": ").replace(/\S*node_modules\S*/g, "…")
  return boundedOutsideText(reason === "" ? "no reason given" : reason)
}

/** Runs the lookup, aborting it and rejecting once `timeoutMs` has passed. */
function withTimeout(lookup: WaVersionLookup, timeoutMs: number, clock: Clock): Promise<WaVersion> {
  const abort = new AbortController()
  return new Promise<WaVersion>((resolve, reject) => {
    const timer = clock.setTimer(timeoutMs, () => {
      abort.abort()
      reject(new Error(`no answer within ${timeoutMs} ms`))
    })
    lookup(abort.signal).then(
      (version) => {
        timer.cancel()
        if (isVersion(version)) resolve(version)
        else reject(new Error(`the lookup answered ${JSON.stringify(version)}, not a version`))
      },
      (err) => {
        timer.cancel()
        reject(err)
      },
    )
  })
}

function isVersion(value: unknown): value is WaVersion {
  return Array.isArray(value) && value.length === 3 && value.every((n) => Number.isInteger(n) && n >= 0)
}
