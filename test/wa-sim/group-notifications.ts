import type { BinaryNode } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import type { SimContact } from "./contact"
import type { SimGroup } from "./groups"
import { unixSeconds } from "./nodes"

/*
 * WhatsApp's group notifications (test/wa-sim/README.md § "Group notifications"): what the
 * server pushes to every device of each member when someone changes a group, as Baileys
 * 7.0.0-rc14 reads them (lib/Socket/messages-recv.js handleGroupNotification, the `picture`
 * case of processNotification) and whatsmeow does (group.go parseGroupChange, parseGroupCreate;
 * notification.go handlePictureNotification). The acting admin is the notification's
 * `participant`; in a LID-addressed group it is a LID with the number in `participant_pn`, and
 * each named participant is `jid` = LID with `phone_number`; in a PN group `jid` is the number
 * with `lid` beside it.
 */

/** Someone in a group change: a member, or the paired account itself. */
export type GroupActor = SimContact | "me"

/** One change a notification carries (each is one child of `<notification type="w:gp2">`). */
export type GroupNotificationChange =
  /** `key` is the create IQ's own key (whatsmeow's JoinedGroup.CreateKey); `reason` is `invite` for a join by link. */
  | { kind: "create"; key?: string; reason?: "create" | "invite" }
  | { kind: "add" | "remove" | "promote" | "demote" | "leave"; participants: GroupActor[] }
  | { kind: "subject"; subject: string }
  | { kind: "description"; description: string | null }
  | { kind: "announcement" | "not_announcement" | "locked" | "unlocked" }
  | { kind: "member_add_mode"; mode: "all_member_add" | "admin_add" }
  | { kind: "membership_approval_mode"; on: boolean }
  | { kind: "ephemeral"; seconds: number }
  | { kind: "membership_request"; requester: SimContact }

/** A group a notification can name: one declared with `sim.group(…)`, or one the group book runs (group-admin.ts). */
export type NotifiedGroup = Pick<SimGroup, "jid" | "addressing"> & { node(me: SimAccount, nowMs: number): BinaryNode }

export interface GroupNotificationArgs {
  group: NotifiedGroup
  /** The paired account that receives it. */
  me: SimAccount
  by: GroupActor
  id: string
  nowMs: number
}

/** Someone's JIDs; `pn` is null for a contact that hides its number (it is named by LID alone). */
function jidsOf(actor: GroupActor, me: SimAccount): { pn: string | null; lid: string } {
  if (actor === "me") return { pn: me.pnJid, lid: me.lidJid }
  return { pn: actor.hidesNumber ? null : actor.pnJid, lid: actor.lidJid }
}

/** Someone as this group names them: `jid` and the other identity under `alt` (when WhatsApp tells it). */
function named(group: NotifiedGroup, actor: GroupActor, me: SimAccount, jid: string, alt: { pn: string; lid: string }): Record<string, string> {
  const { pn, lid } = jidsOf(actor, me)
  if (pn === null) return { [jid]: lid }
  return group.addressing === "lid" ? { [jid]: lid, [alt.pn]: pn } : { [jid]: pn, [alt.lid]: lid }
}

/** A participant as this group names it. */
function participantNode(group: NotifiedGroup, actor: GroupActor, me: SimAccount): BinaryNode {
  return { tag: "participant", attrs: named(group, actor, me, "jid", { pn: "phone_number", lid: "lid" }) }
}

function childOf(change: GroupNotificationChange, args: GroupNotificationArgs): BinaryNode {
  const { group, me } = args
  switch (change.kind) {
    case "create":
      // The new group's metadata, as a `w:g2` query would answer it.
      return { tag: "create", attrs: { reason: change.reason ?? "create", key: change.key ?? args.id }, content: [group.node(me, args.nowMs)] }
    case "add":
    case "remove":
    case "promote":
    case "demote":
    case "leave":
      return { tag: change.kind, attrs: {}, content: change.participants.map((p) => participantNode(group, p, me)) }
    case "subject":
      return { tag: "subject", attrs: { subject: change.subject, s_t: unixSeconds(args.nowMs) } }
    case "description":
      return {
        tag: "description",
        attrs: { id: args.id },
        content: [change.description === null ? { tag: "delete", attrs: {} } : { tag: "body", attrs: {}, content: Buffer.from(change.description, "utf8") }],
      }
    case "member_add_mode":
      return { tag: "member_add_mode", attrs: {}, content: Buffer.from(change.mode, "utf8") }
    case "membership_approval_mode":
      return { tag: "membership_approval_mode", attrs: {}, content: [{ tag: "group_join", attrs: { state: change.on ? "on" : "off" } }] }
    case "ephemeral":
      return change.seconds === 0 ? { tag: "not_ephemeral", attrs: {} } : { tag: "ephemeral", attrs: { expiration: String(change.seconds) } }
    case "membership_request":
      return { tag: "created_membership_requests", attrs: { request_method: "invite_link" }, content: [participantNode(group, change.requester, me)] }
    default:
      return { tag: change.kind, attrs: { v_id: args.id } }
  }
}

/** `<notification type="w:gp2">` carrying `changes`, one child each, made by `by`. */
export function groupNotificationNode(args: GroupNotificationArgs, changes: readonly GroupNotificationChange[]): BinaryNode {
  // The acting admin's LID rides in no attribute of a PN group's notification.
  const { lid: _lid, ...actor } = named(args.group, args.by, args.me, "participant", { pn: "participant_pn", lid: "lid" })
  return {
    tag: "notification",
    attrs: { from: args.group.jid, type: "w:gp2", id: args.id, t: unixSeconds(args.nowMs), ...actor, addressing_mode: args.group.addressing },
    content: changes.map((change) => childOf(change, args)),
  }
}

/** `<notification type="picture">` from a group: its picture was set (`<set>`) or removed (`<delete>`) by `by`. */
export function groupPictureNode(args: GroupNotificationArgs, set: boolean): BinaryNode {
  const { pn, lid } = jidsOf(args.by, args.me)
  const author = args.group.addressing === "lid" || pn === null ? lid : pn
  const child: BinaryNode = set
    ? { tag: "set", attrs: { jid: args.group.jid, id: String(Math.floor(args.nowMs / 1000)), author } }
    : { tag: "delete", attrs: { jid: args.group.jid, author } }
  return { tag: "notification", attrs: { from: args.group.jid, type: "picture", id: args.id, t: unixSeconds(args.nowMs) }, content: [child] }
}
