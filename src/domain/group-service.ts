import type { GroupParticipantAction } from "../lib/vocabulary"
import type { PhoneRow } from "../store/phones"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import {
  checkChanges,
  checkSubject,
  distinctParticipants,
  GROUP_ACTION_PARTICIPANTS_MAX,
  GROUP_CREATE_PARTICIPANTS_MAX,
  GROUP_DESCRIPTION_MAX,
  inviteCodeOf,
  requireGroupId,
  type GroupChangesCommand,
  type GroupDetail,
  type ParticipantResult,
} from "./group-model"
import { liveGroupOps } from "./group-live"
import { sandboxGroupOps } from "./group-sandbox"
import type { LiveLookups } from "./live-lookups"
import type { PhoneLinks } from "./phone-links"
import { resolvePhone } from "./phones"
import { errors } from "../lib/errors"

/*
 * The groups API (docs/api.md § "Run groups: create, detail, settings, participants, invites, join, leave"): checks the input once, resolves
 * the phone, and hands the request to the sandbox (test keys) or the phone's WhatsApp session
 * (live keys), which share one set of operations.
 */

export interface CreateGroupCommand {
  subject: string
  participants: string[]
  description?: string
  idempotencyKey?: string
}

export interface GroupCreated {
  group: GroupDetail
  results: ParticipantResult[]
  replayed: boolean
}

/** A join: the group, or a request the admins must approve. */
export type GroupJoined = { requested: false; group: GroupDetail } | { requested: true }

export interface GroupInvite {
  code: string
  url: string
}

/** What the sandbox and live phones each implement, for a resolved phone and checked input. */
export interface GroupOps {
  create(phone: PhoneRow, cmd: CreateGroupCommand): Promise<GroupCreated>
  detail(phone: PhoneRow, groupId: string): Promise<GroupDetail>
  update(phone: PhoneRow, groupId: string, changes: GroupChangesCommand): Promise<GroupDetail>
  participants(phone: PhoneRow, groupId: string, action: GroupParticipantAction, participants: string[]): Promise<ParticipantResult[]>
  invite(phone: PhoneRow, groupId: string): Promise<GroupInvite>
  revokeInvite(phone: PhoneRow, groupId: string): Promise<GroupInvite>
  join(phone: PhoneRow, code: string): Promise<GroupJoined>
  leave(phone: PhoneRow, groupId: string): Promise<void>
}

/** The groups API, per principal. */
export interface GroupService {
  create(principal: Principal, fromPhoneId: string, cmd: CreateGroupCommand): Promise<GroupCreated>
  detail(principal: Principal, fromPhoneId: string, groupId: string): Promise<GroupDetail>
  update(principal: Principal, fromPhoneId: string, groupId: string, changes: GroupChangesCommand): Promise<GroupDetail>
  participants(principal: Principal, fromPhoneId: string, groupId: string, action: GroupParticipantAction, participants: string[]): Promise<ParticipantResult[]>
  invite(principal: Principal, fromPhoneId: string, groupId: string): Promise<GroupInvite>
  revokeInvite(principal: Principal, fromPhoneId: string, groupId: string): Promise<GroupInvite>
  join(principal: Principal, fromPhoneId: string, invite: string): Promise<GroupJoined>
  leave(principal: Principal, fromPhoneId: string, groupId: string): Promise<void>
}

/** What live group requests need: the connected sessions and the number cache. */
export interface GroupServiceDeps {
  ctx: DomainContext
  links: PhoneLinks
  lookups: LiveLookups
}

export function createGroupService(deps: GroupServiceDeps): GroupService {
  const sandbox = sandboxGroupOps(deps.ctx)
  const live = liveGroupOps(deps)
  const on = async (principal: Principal, fromPhoneId: string, groupId?: string) => {
    if (groupId !== undefined) requireGroupId(groupId)
    const phone = await resolvePhone(deps.ctx, principal.accountId, fromPhoneId)
    return { phone, ops: principal.env === "test" ? sandbox : live }
  }
  return {
    async create(principal, fromPhoneId, cmd) {
      const problems: string[] = []
      checkSubject(cmd.subject, problems)
      if (cmd.description !== undefined && [...cmd.description].length > GROUP_DESCRIPTION_MAX) problems.push(`description must be at most ${GROUP_DESCRIPTION_MAX} characters`)
      if (problems.length > 0) throw errors.validation(problems)
      const participants = distinctParticipants(cmd.participants, GROUP_CREATE_PARTICIPANTS_MAX)
      const { phone, ops } = await on(principal, fromPhoneId)
      return ops.create(phone, { ...cmd, participants })
    },
    async detail(principal, fromPhoneId, groupId) {
      const { phone, ops } = await on(principal, fromPhoneId, groupId)
      return ops.detail(phone, groupId)
    },
    async update(principal, fromPhoneId, groupId, changes) {
      checkChanges(changes)
      const { phone, ops } = await on(principal, fromPhoneId, groupId)
      return ops.update(phone, groupId, changes)
    },
    async participants(principal, fromPhoneId, groupId, action, participants) {
      const distinct = distinctParticipants(participants, GROUP_ACTION_PARTICIPANTS_MAX)
      const { phone, ops } = await on(principal, fromPhoneId, groupId)
      return ops.participants(phone, groupId, action, distinct)
    },
    async invite(principal, fromPhoneId, groupId) {
      const { phone, ops } = await on(principal, fromPhoneId, groupId)
      return ops.invite(phone, groupId)
    },
    async revokeInvite(principal, fromPhoneId, groupId) {
      const { phone, ops } = await on(principal, fromPhoneId, groupId)
      return ops.revokeInvite(phone, groupId)
    },
    async join(principal, fromPhoneId, invite) {
      const code = inviteCodeOf(invite)
      const { phone, ops } = await on(principal, fromPhoneId)
      return ops.join(phone, code)
    },
    async leave(principal, fromPhoneId, groupId) {
      const { phone, ops } = await on(principal, fromPhoneId, groupId)
      return ops.leave(phone, groupId)
    },
  }
}
