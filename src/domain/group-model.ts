import { errors } from "../lib/errors"
import { isGroupJid } from "../lib/formats"
import { sha256Hex } from "../lib/secrets"
import { boundedOutsideText } from "../lib/outside-text"
import { toIsoOrNull } from "../lib/time"
import type { GroupMemberAddMode, GroupParticipantAction, GroupParticipantResult } from "../lib/vocabulary"
import { GROUP_EPHEMERAL_SECONDS } from "../lib/vocabulary"
import type { GroupDetailInfo, GroupMemberOutcome, GroupPerson, GroupSettingsChanges } from "../whatsapp/gateway"

/*
 * The groups API's shapes and rules (docs/api.md § "Run groups: create, detail, settings, participants, invites, join, leave"), shared by the
 * sandbox (group-sandbox.ts) and live phones (group-live.ts).
 */

/** Subject length WhatsApp accepts, in characters. */
export const GROUP_SUBJECT_MAX = 100
/** Description length WhatsApp accepts, in characters. */
export const GROUP_DESCRIPTION_MAX = 2048
/** Participants a create may name. */
export const GROUP_CREATE_PARTICIPANTS_MAX = 256
/** Participants one action may name. */
export const GROUP_ACTION_PARTICIPANTS_MAX = 50

export interface GroupSettings {
  announce: boolean
  locked: boolean
  memberAddMode: GroupMemberAddMode
  approvalMode: boolean
  ephemeralSeconds: number
}

export interface GroupParticipant {
  id: string
  phoneNumber: string | null
  lid: string | null
  isAdmin: boolean
  isSuperAdmin: boolean
}

/** A group as `GET /v1/groups/{groupId}` reports it: the seed's Group and its detail. */
export interface GroupDetail {
  id: string
  name: string
  isCommunityAnnounce: boolean
  description: string | null
  owner: string | null
  createdAt: string | null
  settings: GroupSettings
  participants: GroupParticipant[]
  pendingRequests: { id: string; phoneNumber: string | null; lid: string | null }[]
  pictureUrl: string | null
}

/** What became of one participant. */
export interface ParticipantResult {
  participant: string
  result: GroupParticipantResult
  errorCode?: string
}

/** What `PATCH /v1/groups/{groupId}` may change: the settings a group notice reports, less the picture (its own route). */
export type GroupChangesCommand = Omit<GroupSettingsChanges, "picture">

/** The result a participant gets when WhatsApp did what the action asked. */
export const DONE_RESULT: Record<GroupParticipantAction, GroupParticipantResult> = {
  add: "added",
  remove: "removed",
  promote: "promoted",
  demote: "demoted",
  approve: "approved",
  reject: "rejected",
}

const INVITE_CODE = /^[A-Za-z0-9]{10,32}$/
const INVITE_LINK = /^https:\/\/chat\.whatsapp\.com\/(?:invite\/)?([A-Za-z0-9]{10,32})\/?$/

/** The invite code of a code or a `https://chat.whatsapp.com/…` link, or a 400 saying what is wrong. */
export function inviteCodeOf(invite: string): string {
  const text = invite.trim()
  const code = INVITE_CODE.test(text) ? text : INVITE_LINK.exec(text)?.[1]
  if (code === undefined) throw errors.validation(["invite must be an invite code or a https://chat.whatsapp.com/… link"])
  return code
}

/** Refuses a group id that is not a group JID (`…@g.us`). */
export function requireGroupId(groupId: string): void {
  if (!isGroupJid(groupId)) throw errors.validation(["groupId must be a group id (…@g.us), as GET /v1/groups lists them"])
}

/** The link WhatsApp's apps open for an invite code. */
export function inviteUrlOf(code: string): string {
  return `https://chat.whatsapp.com/${code}`
}

/** Refuses the changes WhatsApp would: an empty or too long subject, a timer it does not offer, nothing to change. */
export function checkChanges(changes: GroupChangesCommand): void {
  const problems: string[] = []
  if (changes.subject !== undefined) checkSubject(changes.subject, problems)
  if (changes.description !== undefined && [...changes.description].length > GROUP_DESCRIPTION_MAX) {
    problems.push(`description must be at most ${GROUP_DESCRIPTION_MAX} characters`)
  }
  if (changes.ephemeralSeconds !== undefined && !(GROUP_EPHEMERAL_SECONDS as readonly number[]).includes(changes.ephemeralSeconds)) {
    problems.push(`ephemeralSeconds must be one WhatsApp offers: ${GROUP_EPHEMERAL_SECONDS.join(", ")}`)
  }
  if (Object.values(changes).every((v) => v === undefined)) problems.push("Give at least one of subject, description, announce, locked, memberAddMode, approvalMode, ephemeralSeconds")
  if (problems.length > 0) throw errors.validation(problems)
}

/** Adds the subject's problem to `problems`: 1..100 characters, not blank. */
export function checkSubject(subject: string, problems: string[]): void {
  const length = [...subject.trim()].length
  if (length < 1 || [...subject].length > GROUP_SUBJECT_MAX) problems.push(`subject must be 1 to ${GROUP_SUBJECT_MAX} characters`)
}

/** A participant list without repeats, in the order given, within `max`; 400 otherwise. */
export function distinctParticipants(participants: string[], max: number): string[] {
  const distinct = [...new Set(participants)]
  if (distinct.length < 1 || distinct.length > max) throw errors.validation([`participants must list 1 to ${max} numbers (E.164) or …@lid ids`])
  return distinct
}

/** How wagate writes a person: E.164 when WhatsApp told the number, else its `…@lid` JID. */
export function personId(person: GroupPerson): string {
  return person.phoneNumber ?? person.lid ?? person.jid
}

/** wagate's URL for a group's picture, as the phone sees it. */
export function groupPictureUrl(groupId: string, phoneNumber: string): string {
  return `/v1/groups/${encodeURIComponent(groupId)}/picture?fromPhoneId=${encodeURIComponent(phoneNumber)}`
}

/** WhatsApp's metadata as the API reports it; names and descriptions bounded and escaped. */
export function toGroupDetail(info: GroupDetailInfo, phoneNumber: string): GroupDetail {
  return {
    id: info.id,
    name: boundedOutsideText(info.subject, GROUP_SUBJECT_MAX * 2),
    isCommunityAnnounce: info.isCommunityAnnounce,
    description: info.description === null ? null : boundedOutsideText(info.description, GROUP_DESCRIPTION_MAX * 2),
    owner: info.owner === null ? null : personId(info.owner),
    createdAt: toIsoOrNull(info.createdAtMs),
    settings: {
      announce: info.announce,
      locked: info.locked,
      memberAddMode: info.memberAddMode,
      approvalMode: info.approvalMode,
      ephemeralSeconds: info.ephemeralSeconds,
    },
    participants: info.participants.map((p) => ({ id: personId(p), phoneNumber: p.phoneNumber, lid: p.lid, isAdmin: p.isAdmin, isSuperAdmin: p.isSuperAdmin })),
    pendingRequests: info.pendingRequests.map((p) => ({ id: personId(p), phoneNumber: p.phoneNumber, lid: p.lid })),
    pictureUrl: info.hasPicture ? groupPictureUrl(info.id, phoneNumber) : null,
  }
}

/** What a create's idempotency key is held to: the same phone, subject, description and participants. */
export function createFingerprint(phoneId: string, cmd: { subject: string; description?: string; participants: string[] }): string {
  return sha256Hex(JSON.stringify([phoneId, cmd.subject, cmd.description ?? null, cmd.participants]))
}

/** One participant's result from WhatsApp's outcome (`invited` is decided by whoever sent the invite). */
export function resultOf(action: GroupParticipantAction, participant: string, outcome: GroupMemberOutcome): ParticipantResult {
  switch (outcome.outcome) {
    case "done":
      return { participant, result: DONE_RESULT[action] }
    case "not_in_group":
      return { participant, result: "not_in_group" }
    case "not_on_whatsapp":
      return { participant, result: "not_on_whatsapp" }
    case "privacy_refused":
      return { participant, result: "failed", errorCode: "privacy_refused" }
    case "failed":
      return { participant, result: "failed", errorCode: boundedOutsideText(outcome.detail, 32) }
  }
}
