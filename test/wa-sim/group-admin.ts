import { randomBytes } from "node:crypto"
import type { BinaryNode } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import type { Addressing, SimContact } from "./contact"
import type { SimGroup } from "./groups"
import { unixSeconds } from "./nodes"

/*
 * Groups the paired phone runs (README.md § "Group administration"): the server-side state the
 * `w:g2` set IQs of group-admin-iqs.ts change and the metadata queries describe, as Baileys 7
 * (lib/Socket/groups.js, extractGroupMetadata) and whatsmeow (group.go, parseGroupNode) read it.
 * A group declared with `sim.group(…)` is taken over on its first administrative IQ (its members
 * and admins copied from its metadata); from then on this state answers for it. Membership
 * changes here do not change who decrypts the group's messages (SimGroup.members does that).
 */

/** A member's rank: WhatsApp's participant `type` attribute, absent for a plain member. */
export type GroupRank = "member" | "admin" | "superadmin"

/** One participant: the paired account itself, or a contact. */
export interface GroupSeat {
  who: SimAccount | SimContact
  rank: GroupRank
}

const CODE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

/** A WhatsApp-style invite code: 22 letters and digits, as chat.whatsapp.com links carry them. */
export function inviteCode(): string {
  return [...randomBytes(22)].map((byte) => CODE_ALPHABET[byte % CODE_ALPHABET.length]).join("")
}

/** One group's administrative state. */
export class AdminGroup {
  subject: string
  description: { id: string; body: string; atS: number } | null = null
  announce = false
  locked = false
  memberAddMode: "admin_add" | "all_member_add" = "admin_add"
  approval = false
  ephemeralSeconds = 0
  code = inviteCode()
  readonly revokedCodes = new Set<string>()
  readonly seats: GroupSeat[] = []
  /** Contacts who asked to join and wait for an admin. */
  readonly pending: SimContact[] = []
  /** The paired account asked to join and waits for an admin. */
  mePending = false
  /** The invite each privacy-refused add handed back, newest per contact (its group invite message should carry it). */
  readonly addRequests = new Map<SimContact, { code: string; expiration: string }>()

  constructor(
    readonly id: string,
    subject: string,
    readonly creator: SimAccount | SimContact,
    readonly creationS: string,
    readonly addressing: Addressing,
  ) {
    this.subject = subject
  }

  get jid(): string {
    return `${this.id}@g.us`
  }

  seatOf(who: SimAccount | SimContact): GroupSeat | undefined {
    return this.seats.find((seat) => seat.who === who)
  }

  /** The seat a participant jid names, by number or LID. */
  seatFor(user: string): GroupSeat | undefined {
    return this.seats.find((seat) => seat.who.owns(user))
  }

  isAdmin(who: SimAccount | SimContact): boolean {
    const rank = this.seatOf(who)?.rank
    return rank === "admin" || rank === "superadmin"
  }

  /** A participant's jid as this group names participants, with its other identity alongside. */
  participantAttrs(who: SimAccount | SimContact): Record<string, string> {
    const noNumber = "noNumber" in who && who.noNumber
    if (noNumber) return { jid: who.lidJid }
    return this.addressing === "lid" ? { jid: who.lidJid, phone_number: who.pnJid } : { jid: who.pnJid, lid: who.lidJid }
  }

  /** The `<group>` node a metadata query, the participating list or a create answers with. */
  node(): BinaryNode {
    const content: BinaryNode[] = this.seats.map((seat) => ({
      tag: "participant",
      attrs: { ...this.participantAttrs(seat.who), ...(seat.rank === "member" ? {} : { type: seat.rank }) },
    }))
    if (this.description) {
      const d = this.description
      content.push({ tag: "description", attrs: { id: d.id, t: String(d.atS) }, content: [{ tag: "body", attrs: {}, content: Buffer.from(d.body) }] })
    }
    if (this.announce) content.push({ tag: "announcement", attrs: {} })
    if (this.locked) content.push({ tag: "locked", attrs: {} })
    if (this.ephemeralSeconds > 0) content.push({ tag: "ephemeral", attrs: { expiration: String(this.ephemeralSeconds) } })
    content.push({ tag: "member_add_mode", attrs: {}, content: Buffer.from(this.memberAddMode) })
    if (this.approval) content.push({ tag: "membership_approval_mode", attrs: {}, content: [{ tag: "group_join", attrs: { state: "on" } }] })
    return {
      tag: "group",
      attrs: {
        id: this.id,
        subject: this.subject,
        s_t: this.creationS,
        creation: this.creationS,
        creator: this.creator.pnJid,
        addressing_mode: this.addressing,
        size: String(this.seats.length),
      },
      content,
    }
  }
}

/** Everything the server knows about administered groups, for one paired account. */
export class GroupBook {
  private readonly groups = new Map<string, AdminGroup>()
  /** Contacts whose privacy settings refuse being added to groups by this account. */
  private readonly refusing = new Set<SimContact>()
  private nextNumber = 1

  constructor(readonly account: SimAccount) {}

  /** Makes `contact` refuse adds: the add answers 403 with an `<add_request>` invite code. */
  refuseAdds(contact: SimContact): void {
    this.refusing.add(contact)
  }

  refusesAdds(contact: SimContact): boolean {
    return this.refusing.has(contact)
  }

  /** A group this book holds, by its id (with or without `@g.us`). */
  get(id: string): AdminGroup | undefined {
    return this.groups.get(id.replace(/@g\.us$/, ""))
  }

  all(): Iterable<AdminGroup> {
    return this.groups.values()
  }

  /** The group an invite code (current or revoked) belongs to. */
  byCode(code: string): { group: AdminGroup; revoked: boolean } | undefined {
    for (const group of this.groups.values()) {
      if (group.code === code) return { group, revoked: false }
      if (group.revokedCodes.has(code)) return { group, revoked: true }
    }
    return undefined
  }

  /** A new group with the next `1203630…` id. */
  open(subject: string, creator: SimAccount | SimContact, nowMs: number, addressing: Addressing = "pn"): AdminGroup {
    const id = `12036390000${String(this.nextNumber++).padStart(7, "0")}`
    const group = new AdminGroup(id, subject, creator, unixSeconds(nowMs), addressing)
    this.groups.set(id, group)
    return group
  }

  /**
   * A group that contacts run and the paired account is not in (for joins by code): `admin`
   * created it; approval on means a join waits for an admin.
   */
  host(options: { subject: string; admin: SimContact; members?: SimContact[]; approval?: boolean; nowMs: number }): AdminGroup {
    const group = this.open(options.subject, options.admin, options.nowMs)
    group.seats.push({ who: options.admin, rank: "superadmin" }, ...(options.members ?? []).map((who) => ({ who, rank: "member" as const })))
    group.approval = options.approval ?? false
    return group
  }

  /** Takes over a group declared with `sim.group(…)`: its members and admins as its metadata names them. */
  adopt(simGroup: SimGroup, contactFor: (user: string) => SimContact | undefined, nowMs: number): AdminGroup {
    const known = this.groups.get(simGroup.id)
    if (known) return known
    const node = simGroup.node(this.account, nowMs)
    const group = new AdminGroup(simGroup.id, simGroup.subject, this.account, unixSeconds(nowMs), simGroup.addressing)
    group.announce = simGroup.announce
    for (const child of Array.isArray(node.content) ? node.content : []) {
      if (child.tag !== "participant") continue
      const user = (child.attrs.jid ?? "").split("@")[0] ?? ""
      const who = this.account.owns(user) ? this.account : contactFor(user)
      if (who) group.seats.push({ who, rank: child.attrs.type === "admin" || child.attrs.type === "superadmin" ? child.attrs.type : "member" })
    }
    this.groups.set(group.id, group)
    return group
  }
}

const books = new WeakMap<SimAccount, GroupBook>()

/** The group book of a paired account (made on first use). */
export function groupBookOf(account: SimAccount): GroupBook {
  let book = books.get(account)
  if (!book) {
    book = new GroupBook(account)
    books.set(account, book)
  }
  return book
}
