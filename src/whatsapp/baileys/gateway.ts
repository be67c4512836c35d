import type { CacheStore } from "@whiskeysockets/baileys"
import type { SessionEvents, WhatsAppGateway, WhatsAppSession } from "../gateway"
import { storedCredsArePaired, type BaileysModule } from "./auth-state"
import { createSharedCache, createSignalKeyCache } from "./key-cache"
import { BaileysSession, type SessionSettings } from "./session"
import { ExpirationNotices } from "./client-expiration"
import { createWaVersionChooser, type WaVersion, type WaVersionLookup } from "./wa-version"
import { configuredVersionLookup } from "./version-probe"
import { createNoticeOnce } from "./group-notices"
import type { NotificationNode } from "./adv-rotation"

/** What the Baileys gateway is built from. */
export interface BaileysGatewayOptions extends SessionSettings {
  /** Loads Baileys; defaults to the dynamic import (tests may count or replace it). */
  loadBaileys?: () => Promise<BaileysModule>
  /** Looks up the current WhatsApp Web version for `auto`; Baileys' lookup by default (tests inject one). */
  waVersionLookup?: WaVersionLookup | null
  /** WAGATE_WA_VERSION_URL: where `auto` reads the version; null asks web.whatsapp.com through Baileys. */
  waVersionUrl?: string | null
}

/** Retry counters kept per phone; more message ids than this and the oldest are forgotten. */
const RETRY_CACHE_ENTRIES = 10_000

/**
 * Signal keys kept in memory for all phones together (sessions, identities, pre-keys): a few
 * MiB at most, however many phones there are; a miss reads SQLite.
 */
const SIGNAL_KEY_CACHE_ENTRIES = 4_096

/**
 * A small CacheStore for Baileys' `msgRetryCounterCache`: a bounded Map, so the counters live as
 * long as the gateway (across reconnects) without a cache dependency or unbounded growth.
 */
export function boundedCache(maxEntries: number): CacheStore {
  return createSharedCache(maxEntries).view("")
}

/**
 * The WhatsApp gateway on Baileys. Baileys is imported on the first connect, not when this
 * module loads, so a server without live phones never pays for it (about 190 ms), and the import
 * is cached per gateway. Everything lives in the returned object: two gateways can coexist.
 */
export function createBaileysGateway(options: BaileysGatewayOptions): WhatsAppGateway {
  const { store, logger } = options
  const load = options.loadBaileys ?? (() => import("@whiskeysockets/baileys"))
  let baileys: Promise<BaileysModule> | null = null
  const retryCaches = new Map<string, CacheStore>()
  const noticesTold = new Map<string, (node: NotificationNode) => boolean>()
  const live = new Map<string, Set<BaileysSession>>()
  const signalKeyCache = createSignalKeyCache(SIGNAL_KEY_CACHE_ENTRIES)

  const loadOnce = () => {
    baileys ??= load().catch((err) => {
      // A failed import may succeed later (e.g. a file briefly unreadable): do not cache it.
      baileys = null
      throw err
    })
    return baileys
  }
  const chooseWaVersion = createWaVersionChooser({
    setting: options.waVersion ?? "auto",
    lookup: options.waVersionLookup !== undefined ? options.waVersionLookup : configuredVersionLookup(options.wsUrl, options.waVersionUrl ?? null, loadOnce),
    builtIn: async () => (await loadOnce()).DEFAULT_CONNECTION_CONFIG.version as unknown as WaVersion,
    clock: options.clock,
    logger,
  })

  const context = {
    store,
    clock: options.clock,
    logger,
    wsUrl: options.wsUrl,
    waVersion: options.waVersion,
    connectTimeoutMs: options.connectTimeoutMs,
    offlineMarkerWaitMs: options.offlineMarkerWaitMs,
    waResendRetentionDays: options.waResendRetentionDays,
    encryptedEdits: options.encryptedEdits,
    pollVotes: options.pollVotes,
    fenceOf: options.fenceOf,
    onFenceRefused: options.onFenceRefused,
    baileys: loadOnce,
    chooseWaVersion,
    expirationNotices: new ExpirationNotices(),
    signalKeyCache,
    retryCache(phoneId: string) {
      let cache = retryCaches.get(phoneId)
      if (!cache) {
        cache = boundedCache(RETRY_CACHE_ENTRIES)
        retryCaches.set(phoneId, cache)
      }
      return cache
    },
    groupNoticeOnce(phoneId: string) {
      let once = noticesTold.get(phoneId)
      if (!once) noticesTold.set(phoneId, (once = createNoticeOnce()))
      return once
    },
    ended(phoneId: string, session: BaileysSession) {
      const sessions = live.get(phoneId)
      sessions?.delete(session)
      if (sessions?.size === 0) live.delete(phoneId)
    },
  }

  return {
    session(phoneId: string, events: SessionEvents): WhatsAppSession {
      const session = new BaileysSession(context, phoneId, events)
      let sessions = live.get(phoneId)
      if (!sessions) live.set(phoneId, (sessions = new Set()))
      sessions.add(session)
      return session
    },
    hasCredentials(phoneId: string): Promise<boolean> {
      return storedCredsArePaired(store, phoneId)
    },
    wipeCredentials(phoneId: string): void {
      // A socket still winding down must not write the rows back.
      for (const session of live.get(phoneId) ?? []) session.detachAuth()
      retryCaches.delete(phoneId)
      // The body runs now (later reads see the rows gone); only the COMMIT is batched.
      store.write(async (q) => q.wipeAuth(phoneId)).catch((err) => logger.error("wiping WhatsApp credentials failed", { phoneId, err }))
    },
  }
}
