import { escapeControls, boundedOutsideText } from "../../lib/outside-text"
import type { GroupChange, GroupNotice, GroupSettingsChanges } from "../gateway"
import type { NotificationNode } from "./adv-rotation"
import { e164FromPnJid, isGroupJid, isLidJid, isPnJid, normalizeUserJid, sameUser, type PnForLid, type SelfLike } from "./mapping"

/*
 * WhatsApp's group notifications (`<notification type="w:gp2">`, and `type="picture"` for a
 * group's picture), read off the socket and told in wagate's words (docs/webhooks.md § "Group
 * events"). Baileys 7.0.0-rc14 surfaces one notification twice, as `groups.update` /
 * `group-participants.update` and again as a stub message, and reads only its first child
 * (lib/Socket/messages-recv.js, handleGroupNotification); reading the node itself, once, with
 * every child, as whatsmeow's parseGroupChange does, gives one notice per notification.
 * The section "Group notifications" of test/wa-sim/README.md lists what each child carries.
 */

/** What the mapping needs of the session: who we are, the LID→number directory, and the time. */
export interface GroupNoticeContext {
  self: SelfLike
  pnForLid: PnForLid
  nowMs: number
}

/** A notice, and whether this phone joined a group whose subject the notification did not carry. */
export interface MappedGroupNotice {
  notice: GroupNotice
  needsSubject: boolean
}

/** WhatsApp's longest group description, in characters; the rest of a longer one is cut. */
const DESCRIPTION_MAX_CHARS = 2048
const PARTICIPANT_ACTIONS = { add: "added", remove: "removed", leave: "left", promote: "promoted", demote: "demoted" } as const
const MEMBER_ADD_MODES: Record<string, GroupSettingsChanges["memberAddMode"]> = { all_member_add: "all", admin_add: "admins" }

function childrenOf(node: NotificationNode | undefined): NotificationNode[] {
  return Array.isArray(node?.content) ? (node.content as NotificationNode[]).filter((c) => typeof c?.tag === "string") : []
}

function textOf(node: NotificationNode | undefined): string | null {
  const content = node?.content
  if (typeof content === "string") return content
  if (content instanceof Uint8Array) return Buffer.from(content).toString("utf8")
  return null
}

/**
 * A user as events name them: E.164 when the number is known (named, behind a LID the directory
 * knows, or our own LID), else the `…@lid` JID.
 */
async function addressOf(jid: string | undefined, pnJid: string | undefined, ctx: GroupNoticeContext): Promise<string | null> {
  for (const candidate of [jid, pnJid]) if (isPnJid(candidate)) return e164FromPnJid(candidate)
  if (!isLidJid(jid)) return null
  if (ctx.self.lid && sameUser(jid, ctx.self.lid) && isPnJid(ctx.self.id)) return e164FromPnJid(ctx.self.id)
  const lid = normalizeUserJid(jid)
  const pn = await ctx.pnForLid(lid).catch(() => null)
  return isPnJid(pn) ? e164FromPnJid(pn) : lid
}

function isSelf(attrs: Record<string, string>, self: SelfLike): boolean {
  return [attrs.jid, attrs.phone_number, attrs.lid].some((jid) => !!jid && (sameUser(jid, self.id) || (!!self.lid && sameUser(jid, self.lid))))
}

/** The settings one child changes, or null when it is not a setting. */
function settingOf(child: NotificationNode): GroupSettingsChanges | null {
  const a = child.attrs ?? {}
  switch (child.tag) {
    case "subject":
      return { subject: boundedOutsideText(a.subject ?? "") }
    case "description": {
      const body = childrenOf(child).find((c) => c.tag === "body")
      const deleted = childrenOf(child).some((c) => c.tag === "delete")
      // Newlines are part of a description; other control characters are escaped like any outside text.
      const text = deleted ? "" : [...(textOf(body) ?? "")].slice(0, DESCRIPTION_MAX_CHARS).join("")
      return { description: text.split("\n").map(escapeControls).join("\n") }
    }
    case "announcement":
    case "not_announcement":
      return { announce: child.tag === "announcement" }
    case "locked":
    case "unlocked":
      return { locked: child.tag === "locked" }
    case "member_add_mode": {
      const mode = MEMBER_ADD_MODES[textOf(child) ?? ""]
      return mode ? { memberAddMode: mode } : null
    }
    case "membership_approval_mode": {
      // Baileys reads `<group_join state="on|off">`; whatsmeow takes the element alone as "on".
      const join = childrenOf(child).find((c) => c.tag === "group_join")
      return { approvalMode: join?.attrs?.state !== "off" }
    }
    case "ephemeral":
      return { ephemeralSeconds: Math.max(0, Math.trunc(Number(a.expiration ?? 0)) || 0) }
    case "not_ephemeral":
      return { ephemeralSeconds: 0 }
    default:
      return null
  }
}

/** The participants one child names, as addresses, and whether this phone is among them. */
async function participantsOf(child: NotificationNode, ctx: GroupNoticeContext): Promise<{ participants: string[]; self: boolean }> {
  const participants: string[] = []
  let self = false
  for (const p of childrenOf(child).filter((c) => c.tag === "participant")) {
    const attrs = p.attrs ?? {}
    self ||= isSelf(attrs, ctx.self)
    const address = await addressOf(attrs.jid, attrs.phone_number, ctx)
    if (address !== null && !participants.includes(address)) participants.push(address)
  }
  return { participants, self }
}

/** The change a participant child makes; `remove` of the actor alone is a leave (as Baileys reads it). */
async function participantChange(child: NotificationNode, by: string | null, ctx: GroupNoticeContext): Promise<{ changes: GroupChange[]; joined: boolean }> {
  const { participants, self } = await participantsOf(child, ctx)
  const tag = child.tag as keyof typeof PARTICIPANT_ACTIONS
  const left = tag === "remove" && participants.length === 1 && participants[0] === by
  const changes: GroupChange[] = [{ kind: "participants", action: left ? "left" : PARTICIPANT_ACTIONS[tag], participants }]
  const joined = tag === "add" && self
  if (joined) changes.push({ kind: "joined", subject: "" })
  return { changes, joined }
}

/**
 * A `create` child: this phone is in a new group, and its creator added the others (the group's
 * participants but the creator); with `reason="invite"` this phone joined by an invite link it
 * used itself (tulir/whatsmeow types/events JoinedGroup.Reason), so it is the one added.
 */
async function createChanges(child: NotificationNode, by: string | null, ctx: GroupNoticeContext): Promise<GroupChange[]> {
  const group = childrenOf(child).find((c) => c.tag === "group")
  const joined: GroupChange = { kind: "joined", subject: boundedOutsideText(group?.attrs?.subject ?? "") }
  const me = await addressOf(ctx.self.id, undefined, ctx)
  const added = child.attrs?.reason === "invite" ? [me] : (await participantsOf(group ?? child, ctx)).participants.filter((p) => p !== by)
  return [joined, { kind: "participants", action: "added", participants: added.filter((p): p is string => p !== null) }]
}

/** One `w:gp2` notification as a notice; null when it names no group or says nothing wagate tells. */
export async function mapGroupNotification(node: NotificationNode, ctx: GroupNoticeContext): Promise<MappedGroupNotice | null> {
  const groupId = node.attrs?.from
  if (!isGroupJid(groupId)) return null
  const by = await addressOf(node.attrs.participant, node.attrs.participant_pn, ctx)
  const changes: GroupChange[] = []
  let settings: GroupSettingsChanges | null = null
  let needsSubject = false
  for (const child of childrenOf(node)) {
    if (child.tag === "create") {
      changes.push(...(await createChanges(child, by, ctx)))
    } else if (child.tag in PARTICIPANT_ACTIONS) {
      const change = await participantChange(child, by, ctx)
      changes.push(...change.changes)
      needsSubject ||= change.joined
    } else if (child.tag === "created_membership_requests") {
      const { participants } = await participantsOf(child, ctx)
      changes.push({ kind: "participants", action: "requested", participants: participants.length > 0 ? participants : by ? [by] : [] })
    } else {
      const setting = settingOf(child)
      if (setting === null) continue
      if (settings === null) changes.push({ kind: "updated", changes: (settings = {}) })
      Object.assign(settings, setting)
    }
  }
  const useful = changes.filter((c) => c.kind !== "participants" || c.participants.length > 0)
  if (useful.length === 0) return null
  return { notice: { groupId: normalizeUserJid(groupId), by, atMs: atMsOf(node, ctx.nowMs), changes: useful }, needsSubject }
}

/** A group's `picture` notification (set or removed) as a notice; null for a user's picture. */
export async function mapPictureNotification(node: NotificationNode, ctx: GroupNoticeContext): Promise<GroupNotice | null> {
  const groupId = node.attrs?.from
  if (!isGroupJid(groupId)) return null
  const child = childrenOf(node).find((c) => c.tag === "set" || c.tag === "delete")
  if (!child) return null
  const by = await addressOf(child.attrs?.author ?? node.attrs.participant, child.attrs?.author_pn ?? node.attrs.participant_pn, ctx)
  const picture = child.tag === "set" ? "set" : "removed"
  return { groupId: normalizeUserJid(groupId), by, atMs: atMsOf(node, ctx.nowMs), changes: [{ kind: "updated", changes: { picture } }] }
}

/** The subject of a group this phone joined, filled in once it is looked up (`""` when that fails). */
export async function withJoinedSubject(mapped: MappedGroupNotice, subjectOf: (groupId: string) => Promise<string>): Promise<GroupNotice> {
  if (!mapped.needsSubject) return mapped.notice
  const subject = boundedOutsideText(await subjectOf(mapped.notice.groupId).catch(() => ""))
  const changes = mapped.notice.changes.map((c) => (c.kind === "joined" && c.subject === "" ? { ...c, subject } : c))
  return { ...mapped.notice, changes }
}

function atMsOf(node: NotificationNode, nowMs: number): number {
  const seconds = Number(node.attrs?.t)
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : nowMs
}

/**
 * Remembers the last notifications seen (by group and id), so one WhatsApp sends again (it was
 * not acknowledged before a reconnect) is told once. Returns true the first time.
 */
export function createNoticeOnce(max = 1024): (node: NotificationNode) => boolean {
  const seen = new Set<string>()
  return (node) => {
    const id = node.attrs?.id
    if (!id) return true
    const key = `${node.attrs.type}|${node.attrs.from}|${id}`
    if (seen.has(key)) return false
    seen.add(key)
    if (seen.size > max) seen.delete(seen.values().next().value!)
    return true
  }
}
