import { isoDay } from "../../lib/time"

/*
 * `<ib><client_expiration t=…/></ib>`: WhatsApp names the time (unix seconds) after which it
 * expects to refuse the client build this socket announced (oxidezap/whatsapp-rust#1314, which
 * reads it from WhatsApp Web's own `<ib>` parser). It is a notice, not a refusal: the socket stays
 * up; the refusal itself is the 405 at the handshake (WhiskeySockets/Baileys#2731).
 */

/** An `<ib>` stanza as `sock.ws.on("CB:ib")` delivers it. */
export interface IbNode {
  tag: string
  attrs: Record<string, string | undefined>
  content?: unknown
}

/** Seconds beyond this are not a date WhatsApp would name (year 2286): the attribute is garbage. */
const MAX_UNIX_SECONDS = 9_999_999_999

/** The announced expiry in ms, or null when the stanza has none (or an unreadable `t`). */
export function clientExpirationOf(node: IbNode): number | null {
  if (!Array.isArray(node.content)) return null
  const child = (node.content as IbNode[]).find((c) => c && typeof c === "object" && c.tag === "client_expiration")
  const t = child?.attrs?.t
  if (t === undefined || !/^\d{1,10}$/.test(t)) return null
  const seconds = Number(t)
  return seconds > 0 && seconds <= MAX_UNIX_SECONDS ? seconds * 1000 : null
}

/**
 * Remembers, per phone, the last expiry logged, so each phone's notice is logged once per
 * distinct date however often WhatsApp repeats it (it may on every login). Shared by a gateway's
 * sessions: a reconnect opens a new session.
 */
export class ExpirationNotices {
  private readonly logged = new Map<string, string>()

  /** True the first time this phone is told this date. */
  firstTime(phoneId: string, expiresAtMs: number): boolean {
    const date = isoDay(expiresAtMs)
    if (this.logged.get(phoneId) === date) return false
    this.logged.set(phoneId, date)
    return true
  }
}
