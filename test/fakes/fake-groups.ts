import type { GroupParticipantAction } from "../../src/lib/vocabulary"
import type { GroupChanges, GroupDetailInfo, GroupJoinOutcome, GroupMemberOutcome, WhatsAppGroups } from "../../src/whatsapp/gateway"

/** One group request as the fake saw it. */
export interface FakeGroupCall {
  phoneId: string
  op: keyof WhatsAppGroups
  args: unknown[]
}

/**
 * WhatsApp's side of group requests, played by the test: the groups it knows (by JID), what it
 * answers for participants, and an error for the next requests. Shared by every fake session.
 */
export class FakeGroupWorld {
  readonly details = new Map<string, GroupDetailInfo>()
  /** The outcomes the next create or participants request answers; by default every participant is done. */
  nextOutcomes: ((jids: string[]) => GroupMemberOutcome[]) | null = null
  joinOutcome: GroupJoinOutcome = { joined: false }
  /** Errors by operation: the request rejects with it (a GroupRefusedError plays WhatsApp's refusal). */
  readonly errors = new Map<keyof WhatsAppGroups, Error>()
  readonly calls: FakeGroupCall[] = []
  inviteCode = "FakeInviteCode000000001"
}

export function detailFixture(id: string, overrides: Partial<GroupDetailInfo> = {}): GroupDetailInfo {
  return {
    id,
    subject: "Fake group",
    description: null,
    owner: { jid: "14155550123@s.whatsapp.net", phoneNumber: "+14155550123", lid: null },
    createdAtMs: Date.UTC(2026, 0, 1),
    isCommunityAnnounce: false,
    announce: false,
    locked: false,
    memberAddMode: "admins",
    approvalMode: false,
    ephemeralSeconds: 0,
    participants: [],
    pendingRequests: [],
    hasPicture: false,
    ...overrides,
  }
}

/** One fake session's group requests against the shared world. */
export function fakeGroups(world: FakeGroupWorld, phoneId: string, isConnected: () => boolean): WhatsAppGroups {
  const call = async <T>(op: keyof WhatsAppGroups, args: unknown[], answer: () => T): Promise<T> => {
    if (!isConnected()) throw new Error("not connected")
    world.calls.push({ phoneId, op, args })
    const error = world.errors.get(op)
    if (error) throw error
    return answer()
  }
  const outcomes = (jids: string[]) => world.nextOutcomes?.(jids) ?? jids.map((jid) => ({ jid, outcome: "done" as const }))
  const known = (groupJid: string) => world.details.get(groupJid) ?? detailFixture(groupJid)
  return {
    create: (subject, jids) =>
      call("create", [subject, jids], () => {
        const detail = detailFixture("120363999999999999@g.us", { subject })
        world.details.set(detail.id, detail)
        return { detail, outcomes: outcomes(jids) }
      }),
    detail: (groupJid) => call("detail", [groupJid], () => known(groupJid)),
    update: (groupJid, changes: GroupChanges) => call("update", [groupJid, changes], () => undefined),
    participants: (groupJid, action: GroupParticipantAction, jids) => call("participants", [groupJid, action, jids], () => outcomes(jids)),
    inviteCode: (groupJid) => call("inviteCode", [groupJid], () => world.inviteCode),
    revokeInvite: (groupJid) => call("revokeInvite", [groupJid], () => (world.inviteCode = `${world.inviteCode.slice(0, -1)}2`)),
    join: (code) => call("join", [code], () => world.joinOutcome),
    leave: (groupJid) => call("leave", [groupJid], () => undefined),
    sendInvite: (toJid, invite) => call("sendInvite", [toJid, invite], () => undefined),
  }
}
