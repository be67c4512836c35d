import { getBinaryNodeChild, type BinaryNode } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import type { SimContact } from "./contact"
import { childNodes, childrenByTag, contentBytes, unixSeconds, userOf } from "./nodes"

/*
 * A contact's LID changes: the number is now connected to a new WhatsApp account, and a client
 * that still holds the old LID mapping is told so by `refresh_lid="true"` on the ack of its next
 * send (WhiskeySockets/Baileys PR #2661; oxidezap/whatsapp-rust PR #1313). What the sources do
 * not say, and this models by inference (test/wa-sim/README.md § "Stale LID mappings"):
 *
 * - which sends the server flags: here every 1:1 send from an account to the contact's old LID,
 *   or to its number while that account has not asked usync for the number's LID since the
 *   change (the refresh whatsapp-rust makes, addressed by number);
 * - what becomes of a flagged message: acked, not delivered (the old chat is stale);
 * - the new account's Signal identity: the contact keeps its keys; only its LID changes, so the
 *   new LID has no session yet and a refreshed client opens one with a fresh key bundle.
 */

/** One send the server acked with `refresh_lid`. */
export interface RefreshLidAck {
  id: string
  to: string
  contact: SimContact
}

export class LidChanges {
  /** Per contact whose LID changed, the accounts (by number) that looked its number up again since. */
  private readonly refreshedBy = new Map<SimContact, Set<string>>()
  /** Every send acked with `refresh_lid`, oldest first. */
  readonly acks: RefreshLidAck[] = []

  /** Gives the contact its new LID; every account's mapping of it is stale from now on. */
  change(contact: SimContact, newLid: string): void {
    contact.moveToLid(newLid)
    this.refreshedBy.set(contact, new Set())
  }

  /** Whether the account with this number (E.164, `+` optional) asked for the contact's LID by number since its last change. */
  refreshed(accountNumber: string, contact: SimContact): boolean {
    return this.refreshedBy.get(contact)?.has(accountNumber.replace(/^\+/, "")) ?? false
  }

  /** Notes a usync `lid` query by number from `account`: the numbers it names are refreshed. */
  noteIq(account: SimAccount, iq: BinaryNode, contactFor: (user: string) => SimContact | undefined): void {
    const usync = getBinaryNodeChild(iq, "usync")
    if (!usync || !childNodes(getBinaryNodeChild(usync, "query")).some((node) => node.tag === "lid")) return
    for (const user of childrenByTag(getBinaryNodeChild(usync, "list"), "user")) {
      const phone = contentBytes(getBinaryNodeChild(user, "contact"))?.toString("utf8").replace(/^\+/, "")
      const jid = user.attrs.jid
      if (jid?.endsWith("@lid")) continue
      const contact = contactFor(jid ? userOf(jid) : (phone ?? ""))
      if (contact) this.refreshedBy.get(contact)?.add(account.phoneNumber)
    }
  }

  /** The `refresh_lid` ack for a 1:1 send to a stale identity of the contact, or null to go on as usual. */
  staleAck(account: SimAccount, contact: SimContact | undefined, stanza: BinaryNode, nowMs: number): BinaryNode | null {
    const to = stanza.attrs.to ?? ""
    const id = stanza.attrs.id
    if (!contact || !id || !this.refreshedBy.has(contact)) return null
    const user = userOf(to)
    const toFormerLid = to.endsWith("@lid") && contact.formerLids.includes(user)
    const toStaleNumber = to.endsWith("@s.whatsapp.net") && !this.refreshed(account.phoneNumber, contact)
    if (!toFormerLid && !toStaleNumber) return null
    this.acks.push({ id, to, contact })
    return { tag: "ack", attrs: { class: "message", id, from: to, t: unixSeconds(nowMs), refresh_lid: "true" } }
  }
}
