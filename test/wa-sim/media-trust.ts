import type { WaSim } from "./sim"

/** Where Baileys downloads media that names only a direct path (`DEF_MEDIA_HOST`). */
const WHATSAPP_MEDIA_ORIGIN = "https://mmg.whatsapp.net"

/**
 * Makes Baileys' media upload (and download) trust the simulator's media host inside this process.
 *
 * Under Bun, Baileys uploads with the global `fetch` and passes no TLS option it could be given
 * (`options` only contributes headers; `fetchAgent` is used only when it is an undici dispatcher,
 * which Bun ignores). What was tried on Bun 1.4.5 against a self-signed 127.0.0.1 certificate:
 * setting `NODE_EXTRA_CA_CERTS` at runtime has no effect (it is read at process start only; it
 * does work when set before `bun` starts), `tls.setDefaultCACertificates()` does not affect
 * `fetch`, an undici `Agent` as `dispatcher` is ignored, and only a per-request `tls: { ca }` (or a
 * `Bun.FetchSession` holding it) is honoured.
 *
 * So this swaps `globalThis.fetch` for one that sends requests for the media host's origin through
 * the simulator's trusting `FetchSession` and passes every other request to the original fetch
 * untouched. It returns the function that puts the original back; call it in `afterAll`.
 *
 * Requests for WhatsApp's default media host (`https://mmg.whatsapp.net`) go to the simulator's
 * host too: a history sync notification names its blob by `directPath` alone, which Baileys
 * 7.0.0-rc14 downloads from that default host (`downloadHistory` in lib/Utils/history.js,
 * `getUrlFromDirectPath` in lib/Utils/messages-media.js).
 */
export function trustMediaHostInFetch(sim: WaSim, scope: { fetch: typeof fetch } = globalThis): () => void {
  const original = scope.fetch
  const origin = sim.media.origin
  const routed = (input: string | URL | Request, init?: BunFetchRequestInit): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url
    if (!URL.canParse(url)) return original(input, init)
    const parsed = new URL(url)
    if (parsed.origin === origin) return sim.media.fetch(input, init)
    if (parsed.origin === WHATSAPP_MEDIA_ORIGIN) return sim.media.fetch(`${origin}${parsed.pathname}${parsed.search}`, init)
    return original(input, init)
  }
  scope.fetch = Object.assign(routed, { preconnect: original.preconnect }) as typeof fetch
  return () => {
    scope.fetch = original
  }
}
