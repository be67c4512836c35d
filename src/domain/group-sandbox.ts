import { errors } from "../lib/errors"
import type { GroupChangeAction, GroupParticipantAction } from "../lib/vocabulary"
import type { PhoneRow } from "../store/phones"
import type { StoreQueries, WriteTx } from "../store/store"
import type { GroupChange } from "../whatsapp/gateway"
import { recordGroupEvents } from "./group-events"
import type { DomainContext } from "./context"
import { createFingerprint, inviteUrlOf, type GroupChangesCommand, type GroupDetail, type ParticipantResult, DONE_RESULT } from "./group-model"
import {
  loadSandboxGroup,
  memberOf,
  newGroupIdentity,
  newInviteCode,
  sandboxDetail,
  saveSandboxGroup,
  SANDBOX_INVITED,
  SANDBOX_NOT_ON_WHATSAPP,
  groupWithInvite,
  type SandboxGroupState,
} from "./group-sandbox-state"
import type { CreateGroupCommand, GroupCreated, GroupJoined, GroupOps } from "./group-service"

/*
 * The groups API for test keys (docs/api.md § "Run groups: create, detail, settings, participants, invites, join, leave", the sandbox): every action applies to the
 * account's sandbox groups in the store, with WhatsApp's rules (members only, admins for admin
 * actions) and the magic participants: +12025550101 is not on WhatsApp, +12025550106 refuses adds
 * by privacy and is sent an invite instead.
 */

/** One sandbox group this phone is in, or 404. */
async function memberGroup(q: StoreQueries, phone: PhoneRow, groupId: string): Promise<SandboxGroupState> {
  const found = await loadSandboxGroup(q, phone.accountId, groupId)
  if (found === null || memberOf(found.state, phone.phoneNumber) === undefined) throw errors.groupNotFound(groupId, phone.phoneNumber)
  return found.state
}

/** One sandbox group this phone administers: 404 when it is not in it, 403 when it is not admin. */
async function adminGroup(q: StoreQueries, phone: PhoneRow, groupId: string): Promise<SandboxGroupState> {
  const state = await memberGroup(q, phone, groupId)
  if (!memberOf(state, phone.phoneNumber)!.isAdmin) throw errors.groupNotAdmin(groupId, phone.phoneNumber)
  return state
}

/** Applies one participant action to the state; the result for that participant. */
function applyOne(state: SandboxGroupState, action: GroupParticipantAction, id: string): ParticipantResult {
  const member = memberOf(state, id)
  const done = (): ParticipantResult => ({ participant: id, result: DONE_RESULT[action] })
  switch (action) {
    case "add":
      if (id === SANDBOX_NOT_ON_WHATSAPP) return { participant: id, result: "not_on_whatsapp" }
      if (id === SANDBOX_INVITED) return { participant: id, result: "invited" }
      if (member !== undefined) return { participant: id, result: "failed", errorCode: "already_in_group" }
      state.members.push({ id, isAdmin: false, isSuperAdmin: false })
      state.pending = state.pending.filter((p) => p !== id)
      return done()
    case "approve":
    case "reject":
      if (!state.pending.includes(id)) return { participant: id, result: "failed", errorCode: "no_request" }
      state.pending = state.pending.filter((p) => p !== id)
      if (action === "approve") state.members.push({ id, isAdmin: false, isSuperAdmin: false })
      return done()
    default:
      if (member === undefined) return { participant: id, result: "not_in_group" }
      // WhatsApp never lets anyone remove or demote the group's creator.
      if (member.isSuperAdmin && action !== "promote") return { participant: id, result: "failed", errorCode: "not_allowed" }
      if (action === "remove") state.members = state.members.filter((m) => m !== member)
      else member.isAdmin = action === "promote"
      return done()
  }
}

/** The group event's action for each participant action that changes who is in the group. */
const CHANGE_OF: Record<Exclude<GroupParticipantAction, "reject">, GroupChangeAction> = {
  add: "added",
  approve: "added",
  remove: "removed",
  promote: "promoted",
  demote: "demoted",
}

/** The participants an action did something to (an `invited` person is not in the group yet). */
const doneOf = (results: ParticipantResult[]) => results.filter((r) => r.result !== "invited" && r.result !== "not_on_whatsapp" && r.result !== "not_in_group" && r.result !== "failed").map((r) => r.participant)

/** The sandbox's group operations. */
export function createSandboxGroupOps(ctx: DomainContext): GroupOps {
  /** Runs `fn` in a write; the group changes it reports are recorded as events in the same transaction, made by the phone. */
  const write = <T>(phone: PhoneRow, fn: (q: StoreQueries, changed: (groupId: string, ...changes: GroupChange[]) => void) => Promise<T>) =>
    ctx.store.write(async (q, tx: WriteTx) => {
      const inputs: Parameters<typeof recordGroupEvents>[3][number][] = []
      const atMs = ctx.clock.nowMs()
      const base = { accountId: phone.accountId, env: "test" as const, phoneId: phone.id, by: phone.phoneNumber, atMs }
      const result = await fn(q, (groupId, ...changes) => inputs.push(...changes.map((change) => ({ ...base, groupId, change }))))
      await recordGroupEvents(ctx, q, tx, inputs)
      return result
    })

  return {
    create: (phone, cmd: CreateGroupCommand) =>
      write(phone, async (q, changed): Promise<GroupCreated> => {
        const fingerprint = createFingerprint(phone.id, cmd)
        if (cmd.idempotencyKey !== undefined) {
          const existing = await q.findSandboxGroupByIdempotencyKey(phone.accountId, cmd.idempotencyKey)
          if (existing !== null) {
            if (existing.requestFingerprint !== fingerprint) throw errors.idempotencyMismatch()
            const state = JSON.parse(existing.state) as SandboxGroupState
            return { group: sandboxDetail(state), results: createResults(cmd.participants, state), replayed: true }
          }
        }
        const nowMs = ctx.clock.nowMs()
        const { id, inviteCode } = newGroupIdentity(ctx)
        const state: SandboxGroupState = {
          id,
          subject: cmd.subject,
          description: cmd.description ?? null,
          owner: phone.phoneNumber,
          createdAtMs: nowMs,
          isCommunityAnnounce: false,
          settings: { announce: false, locked: false, memberAddMode: "admins", approvalMode: false, ephemeralSeconds: 0 },
          members: [{ id: phone.phoneNumber, isAdmin: true, isSuperAdmin: true }],
          pending: [],
          inviteCode,
        }
        const results = cmd.participants.map((p) => (p === phone.phoneNumber ? { participant: p, result: "added" as const } : applyOne(state, "add", p)))
        await saveSandboxGroup(q, phone.accountId, state, nowMs, { idempotencyKey: cmd.idempotencyKey ?? null, fingerprint })
        changed(id, { kind: "joined", subject: state.subject }, { kind: "participants", action: "added", participants: doneOf(results) })
        // Live, the description is a second request after the create, told by WhatsApp on its own.
        if (state.description !== null) changed(id, { kind: "updated", changes: { description: state.description } })
        return { group: sandboxDetail(state), results, replayed: false }
      }),
    detail: async (phone, groupId) => sandboxDetail(await memberGroup(ctx.store, phone, groupId)),
    update: (phone, groupId, changes: GroupChangesCommand) =>
      write(phone, async (q, changed) => {
        const state = await memberGroup(q, phone, groupId)
        const before = { subject: state.subject, description: state.description ?? "", ...state.settings }
        const { subject, description, ...settings } = changes
        const needsAdmin = Object.values(settings).some((v) => v !== undefined) || state.settings.locked
        if (needsAdmin && !memberOf(state, phone.phoneNumber)!.isAdmin) throw errors.groupNotAdmin(groupId, phone.phoneNumber)
        if (subject !== undefined) state.subject = subject
        if (description !== undefined) state.description = description === "" ? null : description
        for (const [key, value] of Object.entries(settings)) if (value !== undefined) Object.assign(state.settings, { [key]: value })
        await saveSandboxGroup(q, phone.accountId, state, ctx.clock.nowMs())
        const after: Record<string, unknown> = { subject: state.subject, description: state.description ?? "", ...state.settings }
        // One event per field, as live: WhatsApp takes each field as its own request and tells each change on its own.
        const differs = Object.entries(before).filter(([key, value]) => after[key] !== value)
        changed(groupId, ...differs.map(([key]): GroupChange => ({ kind: "updated", changes: { [key]: after[key] } })))
        return sandboxDetail(state)
      }),
    participants: (phone, groupId, action, participants) =>
      write(phone, async (q, changed) => {
        const state = await memberGroup(q, phone, groupId)
        const mayAdd = action === "add" && state.settings.memberAddMode === "all"
        if (!mayAdd && !memberOf(state, phone.phoneNumber)!.isAdmin) throw errors.groupNotAdmin(groupId, phone.phoneNumber)
        const results = participants.map((p) => applyOne(state, action, p))
        await saveSandboxGroup(q, phone.accountId, state, ctx.clock.nowMs())
        if (action !== "reject") changed(groupId, { kind: "participants", action: CHANGE_OF[action], participants: doneOf(results) })
        return results
      }),
    invite: async (phone, groupId) => {
      const state = await adminGroup(ctx.store, phone, groupId)
      return { code: state.inviteCode, url: inviteUrlOf(state.inviteCode) }
    },
    revokeInvite: (phone, groupId) =>
      write(phone, async (q) => {
        const state = await adminGroup(q, phone, groupId)
        state.inviteCode = newInviteCode(ctx)
        await saveSandboxGroup(q, phone.accountId, state, ctx.clock.nowMs())
        return { code: state.inviteCode, url: inviteUrlOf(state.inviteCode) }
      }),
    join: (phone, code) =>
      write(phone, async (q, changed): Promise<GroupJoined> => {
        const state = await groupWithInvite(q, phone, code)
        if (state === null) throw errors.groupInviteInvalid()
        if (memberOf(state, phone.phoneNumber) !== undefined) return { requested: false, group: sandboxDetail(state) }
        const requested = state.settings.approvalMode
        if (requested) state.pending = [...new Set([...state.pending, phone.phoneNumber])]
        else state.members.push({ id: phone.phoneNumber, isAdmin: false, isSuperAdmin: false })
        await saveSandboxGroup(q, phone.accountId, state, ctx.clock.nowMs())
        if (requested) changed(state.id, { kind: "participants", action: "requested", participants: [phone.phoneNumber] })
        else changed(state.id, { kind: "joined", subject: state.subject }, { kind: "participants", action: "added", participants: [phone.phoneNumber] })
        return requested ? { requested: true } : { requested: false, group: sandboxDetail(state) }
      }),
    leave: (phone, groupId) =>
      write(phone, async (q, changed) => {
        const state = await memberGroup(q, phone, groupId)
        state.members = state.members.filter((m) => m.id !== phone.phoneNumber)
        await saveSandboxGroup(q, phone.accountId, state, ctx.clock.nowMs())
        changed(groupId, { kind: "participants", action: "left", participants: [phone.phoneNumber] })
      }),
  }
}

/** A create's replayed results: what the state shows for each participant. */
function createResults(participants: string[], state: SandboxGroupState): ParticipantResult[] {
  return participants.map((p) => {
    if (p === SANDBOX_NOT_ON_WHATSAPP) return { participant: p, result: "not_on_whatsapp" }
    if (p === SANDBOX_INVITED) return { participant: p, result: "invited" }
    return { participant: p, result: "added" }
  })
}
