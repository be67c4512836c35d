import { randomBytes } from "node:crypto"
import { getBinaryNodeChild, type BinaryNode } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import type { SimContact } from "./contact"
import { contentBytes, unixSeconds, userOf } from "./nodes"

/** How a reach-out time lock treats a 1:1 message: refused without the contact's token, or refused whatever it carries. */
export type ReachoutLock = "without_token" | "always"

/** A 1:1 message the server refused with error 463, for assertions. */
export interface Refusal {
  id: string
  to: string
  /** Whether the stanza carried the `<tctoken>` the server had issued for that contact. */
  carriedToken: boolean
}

/**
 * Privacy tokens (`tctoken`) and the reach-out time lock behind error 463 (test/wa-sim/README.md
 * § "Error 463"). When a contact writes to an account, the server hands the account that
 * contact's token in `<notification type="privacy_token">` (Baileys 7.0.0-rc14 stores it from
 * `handlePrivacyTokenNotification` in lib/Socket/messages-recv.js, keyed by the contact's LID, and
 * attaches it as `<tctoken>` to later 1:1 sends: lib/Socket/messages-send.js). An account under a
 * reach-out time lock has its 1:1 messages refused with `<ack error="463">` when they lack that
 * token (WhiskeySockets/Baileys#2441), or, in the mode reported for contacts one already talks to
 * (#2688, #2698), whatever they carry.
 */
export class PrivacyTokens {
  private readonly issued = new Map<string, Buffer>()
  private readonly locks = new Map<SimAccount, ReachoutLock>()

  /**
   * The notification that gives an account a contact's token the first time the contact writes to
   * it; undefined once the account has it (a contact's client issues a new one only weekly).
   */
  firstNotification(account: SimAccount, contact: SimContact, from: string, nowMs: number): BinaryNode | undefined {
    const key = tokenKey(account, contact)
    if (this.issued.has(key)) return undefined
    const token = randomBytes(24)
    this.issued.set(key, token)
    const t = unixSeconds(nowMs)
    return {
      tag: "notification",
      attrs: { from, type: "privacy_token", id: `privacy-${randomBytes(6).toString("hex")}`, t, ...(from.endsWith("@lid") ? {} : { sender_lid: contact.lidJid }) },
      content: [{ tag: "tokens", attrs: {}, content: [{ tag: "token", attrs: { jid: account.pnJid, t, type: "trusted_contact" }, content: token }] }],
    }
  }

  lock(account: SimAccount, mode: ReachoutLock): void {
    this.locks.set(account, mode)
  }

  unlock(account: SimAccount): void {
    this.locks.delete(account)
  }

  /** The refusal of a 1:1 stanza from a locked account, or undefined when the server lets it through. */
  judge(account: SimAccount, contact: SimContact | undefined, stanza: BinaryNode): Refusal | undefined {
    const lock = this.locks.get(account)
    if (!lock || !contact || (stanza.attrs.to ?? "").endsWith("@g.us")) return undefined
    const carried = contentBytes(getBinaryNodeChild(stanza, "tctoken"))
    const issued = this.issued.get(tokenKey(account, contact))
    const carriedToken = !!carried && !!issued && Buffer.from(carried).equals(issued)
    if (carriedToken && lock === "without_token") return undefined
    return { id: stanza.attrs.id ?? "", to: stanza.attrs.to ?? "", carriedToken }
  }
}

function tokenKey(account: SimAccount, contact: SimContact): string {
  return `${account.phoneNumber}|${userOf(contact.lidJid)}`
}
