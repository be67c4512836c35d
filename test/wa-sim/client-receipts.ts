import type { BinaryNode } from "@whiskeysockets/baileys"
import type { SimContact } from "./contact"
import { childrenByTag, userOf } from "./nodes"
import { ChangeSignal } from "./wait"

/*
 * Receipts a logged-in client sends for messages it received: `<receipt to=chat id=first
 * [participant=author] type=read|read-self t=…><list><item id=…/>…</list></receipt>` (Baileys
 * 7.0.0-rc14 lib/Socket/messages-send.js, `sendReceipt` and `readMessages`; whatsmeow's
 * receipt.go `MarkRead` in tulir/whatsmeow builds the same). WhatsApp passes a `read` receipt on
 * to the message's author, who sees its ticks turn blue; `read-self` (an account that hides its
 * read receipts) only syncs the account's own devices, so the author sees nothing.
 */

/** A read receipt as the author of the messages received it. */
export interface ReadReceiptSeen {
  /** Who sees it: the 1:1 contact, or in a group the author named by `participant`. */
  contact: SimContact
  /** The stanza's `to`: the contact's jid, or the group's. */
  chat: string
  /** Every message id the receipt names, the stanza's `id` first. */
  ids: string[]
}

/** The ids of a receipt: its `id` and each `<list><item id>`. */
function receiptIds(node: BinaryNode): string[] {
  const list = childrenByTag(node, "list")[0]
  return [String(node.attrs.id ?? ""), ...childrenByTag(list, "item").map((item) => String(item.attrs.id ?? ""))].filter((id) => id !== "")
}

/**
 * Read receipts clients sent, in arrival order, and the queue tests read with `next`: each call
 * returns the oldest receipt seen by that contact not returned before.
 */
export class ReadReceipts {
  private readonly seen: ReadReceiptSeen[] = []
  private readonly changed = new ChangeSignal()

  constructor(private readonly capacity: number) {}

  /** Routes a client `<receipt>` to the contact who sees it; other receipt types are not read receipts. */
  add(node: BinaryNode, contactFor: (user: string) => SimContact | undefined): void {
    if (node.tag !== "receipt" || node.attrs.type !== "read") return
    const chat = String(node.attrs.to ?? "")
    const author = chat.endsWith("@g.us") ? String(node.attrs.participant ?? "") : chat
    const contact = contactFor(userOf(author))
    if (!contact) return
    this.seen.push({ contact, chat, ids: receiptIds(node) })
    if (this.seen.length > this.capacity) this.seen.shift()
    this.changed.notify()
  }

  next(contact: SimContact, options: { timeoutMs: number }): Promise<ReadReceiptSeen> {
    return this.changed.waitFor(
      () => {
        const index = this.seen.findIndex((receipt) => receipt.contact === contact)
        return index < 0 ? undefined : this.seen.splice(index, 1)[0]
      },
      { timeoutMs: options.timeoutMs, what: `a read receipt seen by ${contact.phoneNumber}` },
    )
  }
}
