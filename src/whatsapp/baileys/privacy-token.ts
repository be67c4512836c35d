import type { WASocket } from "@whiskeysockets/baileys"
import type { PartRejection } from "../gateway"
import { isGroupJid, isLidJid, normalizeUserJid } from "./mapping"

/*
 * Error 463 says one of two things, and only the sender knows which (docs/live-whatsapp.md §
 * "Error 463"): a 1:1 message went out without the contact's privacy token (`tctoken`) while
 * WhatsApp limits this number's reach-out to new contacts (WhiskeySockets/Baileys#2441), or it
 * carried the token and WhatsApp refused it anyway (#2688, #2698: a reach-out time lock on the
 * account). Baileys attaches the token when its key store holds a live one for the contact, so
 * wagate reads the same store just before each 1:1 send and remembers the answer per part.
 */

/** Baileys' rolling window for a stored token: four buckets of seven days (lib/Utils/tc-token-utils.js). */
const TOKEN_BUCKET_SECONDS = 604_800
const TOKEN_BUCKETS = 4

/** How many sent parts the ledger remembers; an error ack comes within seconds of its send. */
const PARTS_REMEMBERED = 2_000

/** Whether a token stored at `timestampSeconds` is still inside Baileys' window at `nowMs`. */
export function privacyTokenLive(timestampSeconds: string | number | undefined, nowMs: number): boolean {
  const stamp = typeof timestampSeconds === "string" ? Number.parseInt(timestampSeconds, 10) : timestampSeconds
  if (stamp === undefined || Number.isNaN(stamp)) return false
  const currentBucket = Math.floor(nowMs / 1000 / TOKEN_BUCKET_SECONDS)
  return stamp >= (currentBucket - (TOKEN_BUCKETS - 1)) * TOKEN_BUCKET_SECONDS
}

/** The parts of a socket the check reads. */
export type TokenSocket = Pick<WASocket, "authState" | "signalRepository" | "serverProps">

/**
 * Whether Baileys will attach the contact's privacy token to a 1:1 send to `toJid`: the server
 * wants tokens on 1:1 messages and the store holds a live one under the contact's LID (or under
 * the jid itself when its LID is unknown), as Baileys looks it up.
 */
export async function privacyTokenAttached(sock: TokenSocket, toJid: string, nowMs: number): Promise<boolean> {
  if (!sock.serverProps.privacyTokenOn1to1) return false
  const jid = normalizeUserJid(toJid)
  const storageJid = isLidJid(jid) ? jid : ((await sock.signalRepository.lidMapping.getLIDForPN(jid)) ?? jid)
  const entry = (await sock.authState.keys.get("tctoken", [storageJid]))[storageJid]
  return !!entry?.token?.length && privacyTokenLive(entry.timestamp, nowMs)
}

/** What wagate knew about each recent 1:1 send's privacy token, to name a 463 honestly. */
export class PrivacyTokenLedger {
  private readonly attached = new Map<string, boolean>()

  /** Records whether the part's stanza carries the contact's token. */
  note(waMessageId: string, tokenAttached: boolean): void {
    this.attached.delete(waMessageId)
    this.attached.set(waMessageId, tokenAttached)
    if (this.attached.size > PARTS_REMEMBERED) this.attached.delete(this.attached.keys().next().value!)
  }

  /**
   * A 463 becomes `privacy_token_missing` when the part carried no token, and stays
   * `account_restricted` (saying whether the token was attached, when known) otherwise.
   */
  refine(rejection: PartRejection, waMessageId: string): PartRejection {
    if (rejection.detail !== "463") return rejection
    const attached = this.attached.get(waMessageId)
    if (attached === undefined) return rejection
    return { ...rejection, code: attached ? "account_restricted" : "privacy_token_missing", privacyTokenAttached: attached }
  }
}

/** Whether a part goes to a 1:1 chat (the only kind that carries a privacy token). */
export function isOneToOne(toJid: string): boolean {
  return !isGroupJid(toJid)
}
