import { randomBytes } from "node:crypto"
import type { BinaryNode, GroupMetadata, WASocket } from "@whiskeysockets/baileys"
import type { GroupParticipantAction } from "../../lib/vocabulary"
import { GroupRefusedError, type GroupChanges, type GroupDetailInfo, type GroupMemberOutcome, type GroupPerson, type GroupRefusal, type WhatsAppGroups } from "../gateway"

/*
 * The group requests of the port (src/whatsapp/gateway.ts, "Groups this phone runs") on Baileys
 * 7's group socket (lib/Socket/groups.js). Creates and joins go out as raw `w:g2` IQs because
 * Baileys' helpers drop what wagate needs: `groupCreate` keeps neither a participant's `error`
 * nor the `<add_request>` WhatsApp hands back when privacy refuses an add, and
 * `groupAcceptInvite` returns nothing when the join waits for an admin
 * (`<membership_approval_request>`); tulir/whatsmeow group.go (`CreateGroup`, `parseParticipant`,
 * `JoinGroupWithLink`) reads the same answers. Baileys is loaded lazily, so this module imports
 * only its types and reads the nodes itself.
 */

/** What an IQ error code means for each kind of request (whatsmeow's ErrNotInGroup, ErrGroupNotFound, ErrGroupInviteLinkUnauthorized, ErrInviteLinkRevoked, ErrInviteLinkInvalid). */
const READINGS: Record<"detail" | "action" | "join", Partial<Record<number, GroupRefusal>>> = {
  detail: { 401: "not_found", 403: "not_found", 404: "not_found" },
  action: { 401: "not_admin", 403: "not_admin", 404: "not_found" },
  join: { 404: "invite_invalid", 406: "invite_invalid", 410: "invite_invalid" },
}

/** Runs a request; an IQ error becomes a GroupRefusedError, anything else (a timeout, a closed socket) goes on as it is. */
async function asked<T>(kind: keyof typeof READINGS, request: () => Promise<T>): Promise<T> {
  try {
    return await request()
  } catch (err) {
    const code = (err as { data?: unknown } | null)?.data
    if (typeof code !== "number") throw err
    throw new GroupRefusedError(READINGS[kind][code] ?? "refused", String(code))
  }
}

const children = (node: BinaryNode | undefined, tag: string): BinaryNode[] =>
  Array.isArray(node?.content) ? (node.content as BinaryNode[]).filter((child) => child.tag === tag) : []
const child = (node: BinaryNode | undefined, tag: string): BinaryNode | undefined => children(node, tag)[0]

/** The user part of a JID (`15550001111` of `15550001111:3@s.whatsapp.net`). */
const userOf = (jid: string | undefined): string => (jid ?? "").split("@")[0]!.split(":")[0]!
const isPn = (jid: string | undefined): jid is string => jid?.endsWith("@s.whatsapp.net") === true
const isLid = (jid: string | undefined): jid is string => jid?.endsWith("@lid") === true

/** Someone WhatsApp names by `jid`, with `alt` its other identity when told. */
function personOf(jid: string, alt?: string): GroupPerson {
  const pn = isPn(jid) ? jid : isPn(alt) ? alt : null
  return { jid, phoneNumber: pn === null ? null : `+${userOf(pn)}`, lid: isLid(jid) ? jid : isLid(alt) ? alt : null }
}

function detailOf(meta: GroupMetadata, pendingRequests: GroupPerson[]): GroupDetailInfo {
  return {
    id: meta.id,
    subject: meta.subject ?? "",
    description: meta.desc ?? null,
    owner: meta.owner ? personOf(meta.owner, meta.ownerPn) : null,
    createdAtMs: meta.creation ? meta.creation * 1000 : null,
    isCommunityAnnounce: meta.isCommunityAnnounce ?? false,
    announce: meta.announce ?? false,
    locked: meta.restrict ?? false,
    memberAddMode: meta.memberAddMode ? "all" : "admins",
    approvalMode: meta.joinApprovalMode ?? false,
    ephemeralSeconds: meta.ephemeralDuration ?? 0,
    participants: meta.participants.map((p) => ({
      ...personOf(p.id, p.phoneNumber ?? p.lid),
      isAdmin: p.admin === "admin" || p.admin === "superadmin",
      isSuperAdmin: p.admin === "superadmin",
    })),
    pendingRequests,
    // Pictures are served by their own routes; the detail does not ask WhatsApp for one.
    hasPicture: false,
  }
}

/** One participant's answer, in wagate's words; `adding` tells a 404 (not on WhatsApp) from one on the other actions (not in the group). */
function outcomeOf(jid: string, answer: BinaryNode | undefined, adding: boolean): GroupMemberOutcome {
  if (answer === undefined) return { jid, outcome: "failed", detail: "unanswered" }
  const status = Number(answer.attrs.error ?? 200)
  if (status === 200) return { jid, outcome: "done" }
  const invite = child(answer, "add_request")
  if (status === 403 && invite?.attrs.code) {
    return { jid, outcome: "privacy_refused", invite: { code: invite.attrs.code, expiresAtMs: Number(invite.attrs.expiration ?? 0) * 1000 } }
  }
  if (status === 404) return { jid, outcome: adding ? "not_on_whatsapp" : "not_in_group" }
  return { jid, outcome: "failed", detail: String(status) }
}

/** The outcome for each JID asked, from the `<participant>` answers (matched by JID, number or LID). */
function outcomesOf(jids: string[], answers: BinaryNode[], adding: boolean): GroupMemberOutcome[] {
  const answerFor = (jid: string) => answers.find((a) => a.attrs.jid === jid || a.attrs.phone_number === jid || a.attrs.lid === jid)
  return jids.map((jid) => outcomeOf(jid, answerFor(jid), adding))
}

const participantNodes = (jids: string[]): BinaryNode[] => jids.map((jid) => ({ tag: "participant", attrs: { jid } }))

/** The group requests of the phone's socket; `openSocket` throws when it is not connected. */
export function baileysGroups(openSocket: () => WASocket): WhatsAppGroups {
  const groupIq = (type: "get" | "set", to: string, content: BinaryNode[]) => openSocket().query({ tag: "iq", attrs: { type, xmlns: "w:g2", to }, content })

  async function detail(groupJid: string): Promise<GroupDetailInfo> {
    const sock = openSocket()
    const meta = await asked("detail", () => sock.groupMetadata(groupJid))
    const mine = new Set([userOf(sock.user?.id), userOf(sock.user?.lid)].filter((user) => user !== ""))
    const rank = meta.participants.find((p) => mine.has(userOf(p.id)) || mine.has(userOf(p.lid ?? p.phoneNumber)))?.admin
    // Only admins may read who waits (whatsmeow's GetGroupRequestParticipants); a member sees none.
    const waiting = meta.joinApprovalMode && (rank === "admin" || rank === "superadmin") ? await asked("detail", () => groupIq("get", groupJid, [{ tag: "membership_approval_requests", attrs: {} }])) : undefined
    const pending = children(child(waiting, "membership_approval_requests"), "membership_approval_request").map((r) => personOf(r.attrs.jid ?? "", r.attrs.phone_number ?? r.attrs.lid))
    return detailOf(meta, pending)
  }

  async function update(groupJid: string, changes: GroupChanges): Promise<void> {
    const sock = openSocket()
    const act = (request: () => Promise<unknown>) => asked("action", request)
    if (changes.subject !== undefined) await act(() => sock.groupUpdateSubject(groupJid, changes.subject!))
    // Baileys sends the current description's id as `prev` (it reads the metadata first); "" deletes it.
    if (changes.description !== undefined) await act(() => sock.groupUpdateDescription(groupJid, changes.description || undefined))
    if (changes.announce !== undefined) await act(() => sock.groupSettingUpdate(groupJid, changes.announce ? "announcement" : "not_announcement"))
    if (changes.locked !== undefined) await act(() => sock.groupSettingUpdate(groupJid, changes.locked ? "locked" : "unlocked"))
    if (changes.memberAddMode !== undefined) await act(() => sock.groupMemberAddMode(groupJid, changes.memberAddMode === "all" ? "all_member_add" : "admin_add"))
    if (changes.approvalMode !== undefined) await act(() => sock.groupJoinApprovalMode(groupJid, changes.approvalMode ? "on" : "off"))
    if (changes.ephemeralSeconds !== undefined) await act(() => sock.groupToggleEphemeral(groupJid, changes.ephemeralSeconds!))
  }

  async function participants(groupJid: string, action: GroupParticipantAction, jids: string[]): Promise<GroupMemberOutcome[]> {
    if (action === "approve" || action === "reject") {
      const request = { tag: "membership_requests_action", attrs: {}, content: [{ tag: action, attrs: {}, content: participantNodes(jids) }] }
      const answer = await asked("action", () => groupIq("set", groupJid, [request]))
      return outcomesOf(jids, children(child(child(answer, "membership_requests_action"), action), "participant"), false)
    }
    const answer = await asked("action", () => groupIq("set", groupJid, [{ tag: action, attrs: {}, content: participantNodes(jids) }]))
    return outcomesOf(jids, children(child(answer, action), "participant"), action === "add")
  }

  async function invite(groupJid: string, revoke: boolean): Promise<string> {
    const answer = await asked("action", () => groupIq(revoke ? "set" : "get", groupJid, [{ tag: "invite", attrs: {} }]))
    const code = child(answer, "invite")?.attrs.code
    if (!code) throw new GroupRefusedError("refused", "no invite code in the answer")
    return code
  }

  return {
    async create(subject, participantJids) {
      const create = { tag: "create", attrs: { subject, key: randomBytes(8).toString("hex").toUpperCase() }, content: participantNodes(participantJids) }
      const answer = await asked("action", () => groupIq("set", "@g.us", [create]))
      const group = child(answer, "group")
      if (!group?.attrs.id) throw new GroupRefusedError("refused", "no group in the create's answer")
      const outcomes = outcomesOf(participantJids, children(group, "participant"), true)
      return { detail: await detail(group.attrs.id.includes("@") ? group.attrs.id : `${group.attrs.id}@g.us`), outcomes }
    },
    detail,
    update,
    participants,
    inviteCode: (groupJid) => invite(groupJid, false),
    revokeInvite: (groupJid) => invite(groupJid, true),
    async join(code) {
      const answer = await asked("join", () => groupIq("set", "@g.us", [{ tag: "invite", attrs: { code } }]))
      if (child(answer, "membership_approval_request")) return { joined: false }
      const jid = child(answer, "group")?.attrs.jid
      if (!jid) throw new GroupRefusedError("refused", "no group in the join's answer")
      return { joined: true, groupJid: jid }
    },
    async leave(groupJid) {
      await asked("action", () => groupIq("set", "@g.us", [{ tag: "leave", attrs: {}, content: [{ tag: "group", attrs: { id: groupJid } }] }]))
    },
    async sendInvite(toJid, invite) {
      // Relayed as built: Baileys' `groupInvite` content would fetch the group's picture first (an IQ and a download).
      const groupInviteMessage = { inviteCode: invite.code, inviteExpiration: Math.floor(invite.expiresAtMs / 1000), groupJid: invite.groupJid, groupName: invite.subject, caption: "" }
      await openSocket().relayMessage(toJid, { groupInviteMessage }, {})
    },
  }
}
