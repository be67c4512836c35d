import type { BaileysModule } from "./auth-state"
import { baileysVersionLookup, urlVersionLookup, WA_VERSION_LOOKUP_TIMEOUT_MS, type WaVersion, type WaVersionLookup } from "./wa-version"

/** Where Baileys' lookup reads the current WhatsApp Web version (its `fetchLatestWaWebVersion`). */
export const WA_VERSION_LOOKUP_URL = "https://web.whatsapp.com/sw.js"

/** The version lookup exactly as connects make it, and the version they fall back to, for `wagate doctor`. */
export interface WaVersionProbe {
  lookup: WaVersionLookup | null
  lookupTimeoutMs: number
  lookupUrl: string
  builtIn(): Promise<WaVersion>
}

/**
 * The lookup connects make: at WAGATE_WA_VERSION_URL when set, else Baileys' for `wsUrl` (null
 * when the socket is not WhatsApp's).
 */
export function configuredVersionLookup(wsUrl: string, versionUrl: string | null, baileys: () => Promise<BaileysModule>): WaVersionLookup | null {
  return versionUrl !== null ? urlVersionLookup(versionUrl) : baileysVersionLookup(wsUrl, baileys)
}

/**
 * The same lookup the gateway's connects use (see configuredVersionLookup), with Baileys imported
 * once, on first use.
 */
export function waVersionProbe(wsUrl: string, versionUrl: string | null = null): WaVersionProbe {
  let baileys: Promise<BaileysModule> | null = null
  const load = () => (baileys ??= import("@whiskeysockets/baileys"))
  return {
    lookup: configuredVersionLookup(wsUrl, versionUrl, load),
    lookupTimeoutMs: WA_VERSION_LOOKUP_TIMEOUT_MS,
    lookupUrl: versionUrl ?? WA_VERSION_LOOKUP_URL,
    builtIn: async () => (await load()).DEFAULT_CONNECTION_CONFIG.version as unknown as WaVersion,
  }
}
