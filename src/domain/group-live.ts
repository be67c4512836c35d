import { AppError, errors } from "../lib/errors"
import { isE164 } from "../lib/formats"
import type { GroupParticipantAction } from "../lib/vocabulary"
import type { PhoneRow } from "../store/phones"
import { GroupRefusedError, type GroupChanges, type GroupDetailInfo, type GroupMemberOutcome, type WhatsAppSession } from "../whatsapp/gateway"
import { createFingerprint, inviteUrlOf, resultOf, toGroupDetail, type ParticipantResult } from "./group-model"
import type { GroupOps, GroupServiceDeps } from "./group-service"
import { jidOfAddress, noSessionError } from "./wa-targets"

/*
 * The groups API for live keys: each request goes to the phone's WhatsApp session. WhatsApp's
 * refusals become the API's: a group the phone is not in 404, an admin action without admin
 * rights 403 (WhatsApp answers both with its not-authorized code for some requests, so the
 * group's metadata decides which), anything else it refuses 502 with its word for it.
 */

/**
 * The changes that differ from the group as WhatsApp holds it. Only those are sent: WhatsApp
 * tells every change it applies as a notification, and each one is an event (docs/webhooks.md
 * § "Group events"), so a field set to the value it has would be an event that changes nothing.
 */
function differing(before: GroupDetailInfo, changes: GroupChanges): GroupChanges {
  const now: GroupChanges = { ...before, description: before.description ?? "" }
  const keys = Object.keys(changes) as (keyof GroupChanges)[]
  return Object.fromEntries(keys.filter((key) => changes[key] !== undefined && changes[key] !== now[key]).map((key) => [key, changes[key]]))
}

export function createLiveGroupOps(deps: GroupServiceDeps): GroupOps {
  const { ctx, links, lookups } = deps

  async function sessionOf(phone: PhoneRow): Promise<WhatsAppSession> {
    const session = phone.connectionStatus === "connected" ? links.sessionOf(phone.id) : null
    if (session === null) throw await noSessionError(ctx, phone, phone.id)
    return session
  }

  /** Runs one group request, turning WhatsApp's refusals and silences into the API's errors. */
  async function ask<T>(phone: PhoneRow, session: WhatsAppSession, groupId: string | null, request: () => Promise<T>): Promise<T> {
    try {
      return await request()
    } catch (err) {
      throw await refusalOf(phone, session, groupId, err)
    }
  }

  async function refusalOf(phone: PhoneRow, session: WhatsAppSession, groupId: string | null, err: unknown): Promise<AppError> {
    if (err instanceof AppError) return err
    if (!(err instanceof GroupRefusedError)) return errors.whatsappUnanswered("WhatsApp did not answer the group request; retry after a moment", err)
    if (err.reason === "invite_invalid") return errors.groupInviteInvalid()
    if (groupId === null) return errors.groupRefused(err.detail)
    if (err.reason === "not_found") return errors.groupNotFound(groupId, phone.phoneNumber)
    if (err.reason === "not_admin") {
      // WhatsApp's not-authorized answer also comes to a phone no longer in the group: its metadata tells.
      const inGroup = await session.groups.detail(groupId).then(
        () => true,
        (e) => !(e instanceof GroupRefusedError),
      )
      return inGroup ? errors.groupNotAdmin(groupId, phone.phoneNumber) : errors.groupNotFound(groupId, phone.phoneNumber)
    }
    ctx.logger.warn("WhatsApp refused a group request", { phoneId: phone.id, groupId, detail: err.detail })
    return errors.groupRefused(err.detail)
  }

  /** Each participant's JID: numbers through the number cache (null: not on WhatsApp), `…@lid` as they are. */
  async function jidsOf(phone: PhoneRow, session: WhatsAppSession, participants: string[], lookUp: boolean): Promise<Map<string, string | null>> {
    const numbers = participants.filter(isE164)
    let found = new Map<string, string | null>()
    if (lookUp && numbers.length > 0) {
      try {
        found = await lookups.checkNumbers(phone.id, session, numbers)
      } catch (err) {
        throw errors.whatsappUnanswered("Checking the numbers with WhatsApp failed; retry after a moment", err)
      }
    }
    return new Map(participants.map((p) => [p, lookUp && isE164(p) ? (found.get(p) ?? null) : jidOfAddress(p)]))
  }

  /**
   * The results of a create or an action, in the order given. A participant whose privacy
   * refused the add is sent WhatsApp's group invite message, as the app does: `invited` when it
   * went out, `failed` when it did not.
   */
  async function resultsOf(
    session: WhatsAppSession,
    action: GroupParticipantAction,
    jids: Map<string, string | null>,
    outcomes: GroupMemberOutcome[],
    group: () => Promise<{ id: string; subject: string }>,
  ): Promise<ParticipantResult[]> {
    const byJid = new Map(outcomes.map((o) => [o.jid, o]))
    const asked = [...jids].filter(([, jid]) => jid !== null)
    const results: ParticipantResult[] = []
    for (const [participant, jid] of jids) {
      if (jid === null) {
        results.push({ participant, result: "not_on_whatsapp" })
        continue
      }
      // WhatsApp answers each participant under the JID it was asked with; in order otherwise.
      const outcome = byJid.get(jid) ?? outcomes[asked.findIndex(([p]) => p === participant)] ?? { jid, outcome: "failed", detail: "no_answer" }
      if (outcome.outcome !== "privacy_refused") {
        results.push(resultOf(action, participant, outcome))
        continue
      }
      try {
        const { id, subject } = await group()
        await session.groups.sendInvite(jid, { groupJid: id, subject, code: outcome.invite.code, expiresAtMs: outcome.invite.expiresAtMs })
        results.push({ participant, result: "invited" })
      } catch (err) {
        ctx.logger.warn("sending a group invite message failed", { participant, err })
        results.push({ participant, result: "failed", errorCode: "invite_not_sent" })
      }
    }
    return results
  }

  return {
    async create(phone, cmd) {
      const fingerprint = createFingerprint(phone.id, cmd)
      const earlier = cmd.idempotencyKey === undefined ? null : await ctx.store.findGroupCreation(phone.accountId, cmd.idempotencyKey)
      if (earlier !== null && earlier.requestFingerprint !== fingerprint) throw errors.idempotencyMismatch()
      const session = await sessionOf(phone)
      if (earlier !== null) {
        const detail = await ask(phone, session, earlier.groupId, () => session.groups.detail(earlier.groupId))
        return { group: toGroupDetail(detail, phone.phoneNumber), results: JSON.parse(earlier.results) as ParticipantResult[], replayed: true }
      }
      const jids = await jidsOf(phone, session, cmd.participants, true)
      const known = [...jids.values()].filter((j): j is string => j !== null)
      const { detail, outcomes } = await ask(phone, session, null, () => session.groups.create(cmd.subject, known))
      if (cmd.description !== undefined && cmd.description !== "") {
        await ask(phone, session, detail.id, () => session.groups.update(detail.id, { description: cmd.description }))
        detail.description = cmd.description
      }
      lookups.forgetGroups(phone.id)
      const results = await resultsOf(session, "add", jids, outcomes, async () => ({ id: detail.id, subject: detail.subject }))
      if (cmd.idempotencyKey !== undefined) {
        const row = { accountId: phone.accountId, idempotencyKey: cmd.idempotencyKey, requestFingerprint: fingerprint, phoneId: phone.id, groupId: detail.id }
        await ctx.store.write((q) => q.insertGroupCreation({ ...row, results: JSON.stringify(results), createdAtMs: ctx.clock.nowMs() }))
      }
      // The creator is listed by WhatsApp among the participants; those the privacy refused are not.
      return { group: toGroupDetail(detail, phone.phoneNumber), results, replayed: false }
    },
    async detail(phone, groupId) {
      const session = await sessionOf(phone)
      return toGroupDetail(await ask(phone, session, groupId, () => session.groups.detail(groupId)), phone.phoneNumber)
    },
    async update(phone, groupId, changes) {
      const session = await sessionOf(phone)
      const before = await ask(phone, session, groupId, () => session.groups.detail(groupId))
      const wanted = differing(before, changes)
      if (Object.keys(wanted).length === 0) {
        // Nothing would change, so WhatsApp is not asked; a change that needs admin rights still needs them.
        const needsAdmin = before.locked || Object.entries(changes).some(([key, value]) => value !== undefined && key !== "subject" && key !== "description")
        const me = before.participants.find((p) => p.phoneNumber === phone.phoneNumber)
        if (needsAdmin && me !== undefined && !me.isAdmin) throw errors.groupNotAdmin(groupId, phone.phoneNumber)
        return toGroupDetail(before, phone.phoneNumber)
      }
      await ask(phone, session, groupId, () => session.groups.update(groupId, wanted))
      // Who may post may have changed: the next send asks WhatsApp for the list again.
      if (changes.announce !== undefined) lookups.forgetGroups(phone.id)
      return toGroupDetail(await ask(phone, session, groupId, () => session.groups.detail(groupId)), phone.phoneNumber)
    },
    async participants(phone, groupId, action, participants) {
      const session = await sessionOf(phone)
      const jids = await jidsOf(phone, session, participants, action === "add")
      const known = [...jids.values()].filter((j): j is string => j !== null)
      const outcomes = known.length === 0 ? [] : await ask(phone, session, groupId, () => session.groups.participants(groupId, action, known))
      const group = async () => ({ id: groupId, subject: (await ask(phone, session, groupId, () => session.groups.detail(groupId))).subject })
      return resultsOf(session, action, jids, outcomes, group)
    },
    async invite(phone, groupId) {
      const session = await sessionOf(phone)
      const code = await ask(phone, session, groupId, () => session.groups.inviteCode(groupId))
      return { code, url: inviteUrlOf(code) }
    },
    async revokeInvite(phone, groupId) {
      const session = await sessionOf(phone)
      const code = await ask(phone, session, groupId, () => session.groups.revokeInvite(groupId))
      return { code, url: inviteUrlOf(code) }
    },
    async join(phone, code) {
      const session = await sessionOf(phone)
      const joined = await ask(phone, session, null, () => session.groups.join(code))
      if (!joined.joined) return { requested: true }
      lookups.forgetGroups(phone.id)
      const detail = await ask(phone, session, joined.groupJid, () => session.groups.detail(joined.groupJid))
      return { requested: false, group: toGroupDetail(detail, phone.phoneNumber) }
    },
    async leave(phone, groupId) {
      const session = await sessionOf(phone)
      await ask(phone, session, groupId, () => session.groups.leave(groupId))
      lookups.forgetGroups(phone.id)
    },
  }
}
