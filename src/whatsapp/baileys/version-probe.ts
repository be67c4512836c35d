import type { BaileysModule } from "./auth-state"
import { baileysVersionLookup, WA_VERSION_LOOKUP_TIMEOUT_MS, type WaVersion, type WaVersionLookup } from "./wa-version"

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
 * The same lookup the gateway's connects use for `wsUrl` (null when the socket is not WhatsApp's),
 * with Baileys imported once, on first use.
 */
export function waVersionProbe(wsUrl: string): WaVersionProbe {
  let baileys: Promise<BaileysModule> | null = null
  const load = () => (baileys ??= import("@whiskeysockets/baileys"))
  return {
    lookup: baileysVersionLookup(wsUrl, load),
    lookupTimeoutMs: WA_VERSION_LOOKUP_TIMEOUT_MS,
    lookupUrl: WA_VERSION_LOOKUP_URL,
    builtIn: async () => (await load()).DEFAULT_CONNECTION_CONFIG.version as unknown as WaVersion,
  }
}
