import { createHash } from "node:crypto"
import { isE164, isLidJid } from "../lib/formats"
import type { StoreQueries } from "../store/store"
import type { GroupDetail, GroupSettings } from "./group-model"
import type { DomainContext } from "./context"
import type { PhoneRow } from "../store/phones"
import { SANDBOX_GROUPS } from "./sandbox"

/*
 * A sandbox group's state (docs/api.md § "Run groups: create, detail, settings, participants, invites, join, leave", the sandbox): what a test key's groups hold, kept
 * in the store as one JSON document per account and group (src/store/sandbox-groups.ts). The
 * seed's two groups exist for every phone of the account until something changes them; the
 * first change writes them, with every phone of the account as a member.
 */

export interface SandboxMember {
  /** E.164, or a `…@lid` JID. */
  id: string
  isAdmin: boolean
  isSuperAdmin: boolean
}

export interface SandboxGroupState {
  id: string
  subject: string
  description: string | null
  owner: string | null
  createdAtMs: number
  isCommunityAnnounce: boolean
  settings: GroupSettings
  members: SandboxMember[]
  pending: string[]
  inviteCode: string
}

/** The magic participants of sandbox groups. */
export const SANDBOX_NOT_ON_WHATSAPP = "+12025550101"
export const SANDBOX_INVITED = "+12025550106"
/** The owner of the seed's announcement group (the account's phones are its admins, docs/api.md § "Sandbox (test keys)"). */
const SEED_OWNER = "+12025550100"
/** The seed groups' creation time: fixed, so their detail is the same on every run. */
const SEED_CREATED_AT_MS = Date.UTC(2024, 0, 1)

const DEFAULT_SETTINGS: GroupSettings = { announce: false, locked: false, memberAddMode: "admins", approvalMode: false, ephemeralSeconds: 0 }

/** A seed group as it stands until something changes it, with `phones` (E.164) as members. */
export function seedGroupState(groupId: string, phones: string[]): SandboxGroupState | null {
  const seed = SANDBOX_GROUPS.find((g) => g.id === groupId)
  if (seed === undefined) return null
  const announce = seed.isCommunityAnnounce
  return {
    id: seed.id,
    subject: seed.name,
    description: null,
    owner: announce ? SEED_OWNER : (phones[0] ?? null),
    createdAtMs: SEED_CREATED_AT_MS,
    isCommunityAnnounce: announce,
    settings: { ...DEFAULT_SETTINGS, announce },
    members: [
      ...(announce ? [{ id: SEED_OWNER, isAdmin: true, isSuperAdmin: true }] : []),
      ...phones.map((id, i) => ({ id, isAdmin: true, isSuperAdmin: !announce && i === 0 })),
      { id: "+12025550102", isAdmin: false, isSuperAdmin: false },
    ],
    pending: [],
    inviteCode: seedInviteCode(seed.id),
  }
}

/** The seed groups' invite codes until revoked: fixed, so docs and scripts can use them. */
export function seedInviteCode(groupId: string): string {
  return `Sandbox${groupId.split("@")[0]!.slice(-4)}Invite0000`
}

/** A new sandbox group id (`120363…@g.us`) and invite code, drawn from a fresh wagate id. */
export function newGroupIdentity(ctx: DomainContext): { id: string; inviteCode: string } {
  return { id: `120363${digitsOf(ctx.ids.newId("job"), 12)}@g.us`, inviteCode: newInviteCode(ctx) }
}

/** A fresh 22-character invite code. */
export function newInviteCode(ctx: DomainContext): string {
  return createHash("sha256").update(`invite|${ctx.ids.newId("job")}`).digest("base64url").replace(/[-_]/g, "x").slice(0, 22)
}

function digitsOf(seed: string, count: number): string {
  const hex = createHash("sha256").update(seed).digest("hex")
  return BigInt(`0x${hex.slice(0, 24)}`).toString().padStart(count, "0").slice(-count)
}

/** The account's view of a sandbox group: its stored state, a seed group's default, or null. */
export async function loadSandboxGroup(q: StoreQueries, accountId: string, groupId: string): Promise<{ state: SandboxGroupState; stored: boolean } | null> {
  const row = await q.findSandboxGroup(accountId, groupId)
  if (row !== null) return { state: JSON.parse(row.state) as SandboxGroupState, stored: true }
  const phones = (await q.listPhones(accountId)).map((p) => p.phoneNumber)
  const seed = seedGroupState(groupId, phones)
  return seed === null ? null : { state: seed, stored: false }
}

/** Writes a sandbox group's state (a create's key and fingerprint on its first write). */
export async function saveSandboxGroup(
  q: StoreQueries,
  accountId: string,
  state: SandboxGroupState,
  nowMs: number,
  create?: { idempotencyKey: string | null; fingerprint: string | null },
): Promise<void> {
  await q.putSandboxGroup({
    accountId,
    groupId: state.id,
    state: JSON.stringify(state),
    idempotencyKey: create?.idempotencyKey ?? null,
    requestFingerprint: create?.fingerprint ?? null,
    createdAtMs: state.createdAtMs,
    updatedAtMs: nowMs,
  })
}

/** True when the account's stored sandbox group exists and `phoneNumber` is a member (a send may go to it). */
export async function isSandboxGroupMember(q: StoreQueries, accountId: string, groupId: string, phoneNumber: string): Promise<boolean> {
  const row = await q.findSandboxGroup(accountId, groupId)
  return row !== null && memberOf(JSON.parse(row.state) as SandboxGroupState, phoneNumber) !== undefined
}

/** The member entry of `id`, or undefined. */
export function memberOf(state: SandboxGroupState, id: string): SandboxMember | undefined {
  return state.members.find((m) => m.id === id)
}

/** A sandbox group as the API reports it. Sandbox groups have no picture until the picture routes set one. */
export function sandboxDetail(state: SandboxGroupState): GroupDetail {
  const person = (id: string) => ({ id, phoneNumber: isE164(id) ? id : null, lid: isLidJid(id) ? id : null })
  return {
    id: state.id,
    name: state.subject,
    isCommunityAnnounce: state.isCommunityAnnounce,
    description: state.description,
    owner: state.owner,
    createdAt: new Date(state.createdAtMs).toISOString(),
    settings: { ...state.settings },
    participants: state.members.map((m) => ({ ...person(m.id), isAdmin: m.isAdmin, isSuperAdmin: m.isSuperAdmin })),
    pendingRequests: state.pending.map(person),
    pictureUrl: null,
  }
}

/** The account's sandbox group whose current invite is `code` (stored ones, then the seed's untouched ones), or null. */
export async function groupWithInvite(q: StoreQueries, phone: PhoneRow, code: string): Promise<SandboxGroupState | null> {
  const stored = (await q.listSandboxGroups(phone.accountId)).map((row) => JSON.parse(row.state) as SandboxGroupState)
  const found = stored.find((s) => s.inviteCode === code)
  if (found !== undefined) return found
  const phones = (await q.listPhones(phone.accountId)).map((p) => p.phoneNumber)
  const seeds = SANDBOX_GROUPS.filter((g) => !stored.some((s) => s.id === g.id)).map((g) => seedGroupState(g.id, phones)!)
  return seeds.find((s) => s.inviteCode === code) ?? null
}

/** The sandbox groups a phone is in, for `GET /v1/groups`: the seed's (unless it left them) and those created. */
export async function sandboxGroupsOf(ctx: DomainContext, phone: PhoneRow): Promise<{ id: string; name: string; isCommunityAnnounce: boolean }[]> {
  const stored = (await ctx.store.listSandboxGroups(phone.accountId)).map((row) => JSON.parse(row.state) as SandboxGroupState)
  const seeds = SANDBOX_GROUPS.filter((g) => !stored.some((s) => s.id === g.id)).map((g) => ({ ...g }))
  const mine = stored.filter((s) => memberOf(s, phone.phoneNumber) !== undefined)
  const seedIds = new Set(SANDBOX_GROUPS.map((g) => g.id))
  return [
    ...SANDBOX_GROUPS.flatMap((g) => (seeds.some((s) => s.id === g.id) ? [{ ...g }] : mine.filter((s) => s.id === g.id).map(toListed))),
    ...mine.filter((s) => !seedIds.has(s.id)).map(toListed),
  ]
}

const toListed = (s: SandboxGroupState) => ({ id: s.id, name: s.subject, isCommunityAnnounce: s.isCommunityAnnounce })
