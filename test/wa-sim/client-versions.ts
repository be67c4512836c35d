import { S_WHATSAPP_NET, type BinaryNode, type proto } from "@whiskeysockets/baileys"
import { unixSeconds } from "./nodes"

/*
 * Which WhatsApp Web versions the server accepts, what its version page says is current, and the
 * expiry it announces after a login. All three are off by default.
 *
 * - A retired version is refused at the handshake with `<failure reason="405">` (the reports:
 *   WhiskeySockets/Baileys#2731, #1937, #2376; tulir/whatsmeow#1040 shows the same stanza), on a
 *   login and on a registration alike.
 * - The version page is shaped like web.whatsapp.com/sw.js, where Baileys' `fetchLatestWaWebVersion`
 *   reads `"client_revision":<build>` and announces 2.3000.<build> (the fix in WhiskeySockets/Baileys#2731).
 * - `<ib><client_expiration t=…/></ib>` names (unix seconds) when the server expects to stop
 *   accepting the build; the shape is WhatsApp Web's own parser as oxidezap/whatsapp-rust#1314
 *   quotes it. When the real server sends it is not public: the simulator sends it right after
 *   `<success>`, which is the earliest a client can hear it (inferred).
 */

/** A version as wagate and Baileys write it: `2.3000.1023456789`. */
export type VersionText = string

/** The version a client announces in its ClientPayload. */
export function announcedVersion(payload: proto.ClientPayload): VersionText {
  const v = payload.userAgent?.appVersion
  return [v?.primary ?? 0, v?.secondary ?? 0, v?.tertiary ?? 0].join(".")
}

export class ClientVersions {
  private readonly retired: Set<VersionText>
  /** The build the version page names (the patch of 2.3000.<build>); null answers 404. */
  currentBuild: number | null
  /** The expiry announced after each login; null announces none. */
  expiresAtMs: number | null
  /** How often the version page was asked (a client that looks the version up again asks once more). */
  pageRequests = 0

  constructor(options: { retired?: readonly VersionText[]; currentBuild?: number; expiresAtMs?: number } = {}) {
    this.retired = new Set(options.retired ?? [])
    this.currentBuild = options.currentBuild ?? null
    this.expiresAtMs = options.expiresAtMs ?? null
  }

  /** From now on, a client announcing `version` is refused with 405 at the handshake. */
  retire(version: VersionText): void {
    this.retired.add(version)
  }

  /** The version the page names, as clients announce it; null when it names none. */
  get current(): VersionText | null {
    return this.currentBuild === null ? null : `2.3000.${this.currentBuild}`
  }

  /** True when a client announcing `version` is refused. */
  refuses(version: VersionText): boolean {
    return this.retired.has(version)
  }

  /** The answer to `GET /sw.js`. */
  page(): Response {
    this.pageRequests++
    if (this.currentBuild === null) return new Response("not found", { status: 404 })
    // The real page is minified JavaScript with the revision inside a JSON-ish blob.
    return new Response(`self.__SW_CONFIG={"version":"sim","client_revision":${this.currentBuild},"other":1};`, {
      headers: { "content-type": "application/javascript" },
    })
  }

  /** `<ib><client_expiration t=…/></ib>`, or null when none is announced. */
  expirationNode(): BinaryNode | null {
    if (this.expiresAtMs === null) return null
    return { tag: "ib", attrs: { from: S_WHATSAPP_NET }, content: [{ tag: "client_expiration", attrs: { t: unixSeconds(this.expiresAtMs) } }] }
  }
}
