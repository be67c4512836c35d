import type { BinaryNode } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import type { Addressing, SimContact } from "./contact"
import { unixSeconds } from "./nodes"

export interface GroupOptions {
  /** The group id without `@g.us` (digits, or `creator-timestamp`). A unique one is made up when absent. */
  id?: string
  subject: string
  /** Everyone in the group besides the paired account, which is always a member. */
  members: SimContact[]
  /** Admins among the members; `"me"` makes the paired account an admin. */
  admins?: (SimContact | "me")[]
  /** Only admins may post (`<announcement/>`). Metadata only: the simulator does not refuse posts. */
  announce?: boolean
  /** `lid` groups name participants by LID and carry the phone number alongside. Default `pn`. */
  addressing?: Addressing
  /** The server acks messages to this group as soon as they arrive. Default true. */
  autoAck?: boolean
}

/** A group chat: its metadata as `w:g2` queries return it and the members that decrypt its messages. */
export class SimGroup {
  readonly id: string
  readonly subject: string
  readonly members: readonly SimContact[]
  readonly announce: boolean
  readonly addressing: Addressing
  readonly autoAck: boolean
  private readonly admins: ReadonlySet<SimContact | "me">

  constructor(options: GroupOptions & { id: string }) {
    this.id = options.id
    this.subject = options.subject
    this.members = [...options.members]
    this.admins = new Set(options.admins ?? [])
    this.announce = options.announce ?? false
    this.addressing = options.addressing ?? "pn"
    this.autoAck = options.autoAck ?? true
  }

  get jid(): string {
    return `${this.id}@g.us`
  }

  /** The member that a jid's user part names, if any. */
  memberFor(user: string): SimContact | undefined {
    return this.members.find((member) => member.owns(user))
  }

  /** A member's jid as this group addresses participants. */
  participantJid(member: SimContact): string {
    return member.jid(this.addressing)
  }

  /** The `<group>` node describing this group to `me`, the account asking. */
  node(me: SimAccount, creationMs: number): BinaryNode {
    const lid = this.addressing === "lid"
    // A member with no number is listed by its LID alone, even in a PN group (WhiskeySockets/Baileys#2742).
    const participant = (pnJid: string | null, lidJid: string, admin: boolean): BinaryNode => ({
      tag: "participant",
      attrs: {
        ...(pnJid === null ? { jid: lidJid } : lid ? { jid: lidJid, phone_number: pnJid } : { jid: pnJid, lid: lidJid }),
        ...(admin ? { type: "admin" } : {}),
      },
    })
    const content: BinaryNode[] = [
      participant(me.pnJid, me.lidJid, this.admins.has("me")),
      ...this.members.map((member) => participant(member.noNumber ? null : member.pnJid, member.lidJid, this.admins.has(member))),
    ]
    if (this.announce) content.push({ tag: "announcement", attrs: {} })
    const created = unixSeconds(creationMs)
    return {
      tag: "group",
      attrs: {
        id: this.id,
        subject: this.subject,
        creation: created,
        s_t: created,
        addressing_mode: this.addressing,
        size: String(content.filter((node) => node.tag === "participant").length),
      },
      content,
    }
  }
}
