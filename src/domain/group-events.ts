import { Type, type Static } from "@sinclair/typebox"
import { GROUP_JID_PATTERN } from "../lib/formats"
import { named, Nullable, OneOf, Timestamp } from "../lib/schema"
import { toIso } from "../lib/time"
import { GROUP_MEMBER_ADD_MODES, GROUP_CHANGE_ACTIONS, type Environment } from "../lib/vocabulary"
import type { StoreQueries, WriteTx } from "../store/store"
import type { GroupChange, GroupNotice, GroupSettingsChanges } from "../whatsapp/gateway"
import type { OutboxEvent } from "../webhooks/outbox"
import type { DomainContext } from "./context"

/*
 * The group events (docs/webhooks.md § "Group events"): `group.joined`, `group.participants` and
 * `group.updated`, whoever made the change: this phone through the API (sandbox and live), the
 * phone itself, or another admin. Their schemas live here and the event catalogue publishes them;
 * `recordGroupEvent` is the one way the domain writes them to the outbox, inside the transaction
 * of the change that caused them.
 */

const PhoneId = Type.String({ examples: ["ph_01jd0m3k7v5q9z8y6x4w2t0r1p"] })
const GroupId = Type.String({ pattern: GROUP_JID_PATTERN, examples: ["120363000000000001@g.us"] })
const Member = Type.String({ description: "E.164 when WhatsApp tells the number, else the `…@lid` JID.", examples: ["+14155550199"] })
const By = Nullable(
  Type.String({
    description: "Who made the change (E.164 when WhatsApp tells the number, else the `…@lid` JID; this phone's number for its own changes); null when WhatsApp does not say.",
    examples: ["+14155550123"],
  }),
)

export const GroupJoinedData = named(
  "GroupJoinedEventData",
  Type.Object(
    { phoneId: PhoneId, groupId: GroupId, subject: Type.String({ examples: ["Weekend football"] }), by: By, at: Timestamp },
    { description: "This phone was added to a group, created one, or joined one by its invite link." },
  ),
)

export const GroupParticipantsData = named(
  "GroupParticipantsEventData",
  Type.Object(
    {
      phoneId: PhoneId,
      groupId: GroupId,
      action: OneOf(GROUP_CHANGE_ACTIONS, {
        description: "What happened to `participants`: `left` when they removed themselves, `requested` when they asked to join a group whose admins approve members.",
      }),
      participants: Type.Array(Member, { minItems: 1 }),
      by: By,
      at: Timestamp,
    },
    { description: "Participants were added, removed, promoted or demoted, left, or asked to join." },
  ),
)

/** The settings a `group.updated` event may name: the fields of `PATCH /v1/groups/{groupId}`, and the picture. */
export const GroupChanges = named(
  "GroupChanges",
  Type.Object(
    {
      subject: Type.Optional(Type.String({ examples: ["Weekend football"] })),
      description: Type.Optional(Type.String({ description: '`""` when the description was removed.' })),
      announce: Type.Optional(Type.Boolean({ description: "Only admins may send messages." })),
      locked: Type.Optional(Type.Boolean({ description: "Only admins may edit the group's settings." })),
      memberAddMode: Type.Optional(OneOf(GROUP_MEMBER_ADD_MODES, { description: "Who may add members." })),
      approvalMode: Type.Optional(Type.Boolean({ description: "Admins approve who joins by the invite link." })),
      ephemeralSeconds: Type.Optional(Type.Integer({ minimum: 0, description: "The disappearing-messages timer; 0 is off.", examples: [604800] })),
      picture: Type.Optional(OneOf(["set", "removed"] as const, { description: "The group's picture was set (or replaced) or removed." })),
    },
    { additionalProperties: false },
  ),
)
// The port's words and the published schema are one shape: a field added to one fails here.
const sameShape: [Static<typeof GroupChanges>, GroupSettingsChanges] extends [GroupSettingsChanges, Static<typeof GroupChanges>] ? true : never = true
void sameShape

export const GroupUpdatedData = named(
  "GroupUpdatedEventData",
  Type.Object(
    { phoneId: PhoneId, groupId: GroupId, changes: GroupChanges, by: By, at: Timestamp },
    { description: "A group's subject, description, settings, disappearing-messages timer or picture changed; `changes` names only what changed." },
  ),
)

/** The catalogue's entries for the group events (event-catalogue.ts spreads them in). */
export const GROUP_EVENT_ENTRIES = {
  "group.joined": { data: GroupJoinedData, firesWhen: "This phone was added to a group, created one, or joined one by its invite link." },
  "group.participants": {
    data: GroupParticipantsData,
    firesWhen: "Participants of a group of this phone were added, removed, promoted or demoted, left, or asked to join.",
  },
  "group.updated": { data: GroupUpdatedData, firesWhen: "A group's subject, description, settings, disappearing-messages timer or picture changed." },
} as const

export type { GroupChange }

/** Where a group change happened, who made it and when. */
export interface GroupEventInput {
  accountId: string
  env: Environment
  phoneId: string
  groupId: string
  /** E.164 or `…@lid`; null when WhatsApp does not say. */
  by: string | null
  atMs: number
  change: GroupChange
}

/** The outbox event of one group change; null when it says nothing (no participant, no setting). */
export function groupOutboxEvent(e: GroupEventInput): OutboxEvent | null {
  const common = { phoneId: e.phoneId, groupId: e.groupId }
  const tail = { by: e.by, at: toIso(e.atMs) }
  const base = { accountId: e.accountId, env: e.env, occurredAtMs: e.atMs }
  const c = e.change
  if (c.kind === "joined") return { ...base, type: "group.joined", data: { ...common, subject: c.subject, ...tail } }
  if (c.kind === "participants") {
    if (c.participants.length === 0) return null
    return { ...base, type: "group.participants", data: { ...common, action: c.action, participants: c.participants, ...tail } }
  }
  if (Object.keys(c.changes).length === 0) return null
  return { ...base, type: "group.updated", data: { ...common, changes: c.changes, ...tail } }
}

/** Records group changes' events in the caller's transaction (a sandbox action's, or a live route's). */
export async function recordGroupEvents(ctx: Pick<DomainContext, "events">, q: StoreQueries, tx: WriteTx, inputs: readonly GroupEventInput[]): Promise<void> {
  const events = inputs.map(groupOutboxEvent).filter((e): e is OutboxEvent => e !== null)
  if (events.length > 0) await ctx.events.recordMany(q, tx, events)
}

/** Records group changes' events in a transaction of their own (a change WhatsApp told a live phone of). */
export async function emitGroupEvents(ctx: DomainContext, inputs: readonly GroupEventInput[]): Promise<void> {
  if (inputs.length === 0) return
  await ctx.store.write(async (q, tx) => await recordGroupEvents(ctx, q, tx, inputs))
}

/**
 * Records what one group notification of a live phone said, in one transaction. Each notification
 * reaches here once: the adapter reads WhatsApp's node, not Baileys' events and stub messages,
 * which repeat it (src/whatsapp/baileys/group-notices.ts).
 */
export async function recordGroupNotice(ctx: DomainContext, phoneId: string, notice: GroupNotice): Promise<void> {
  const phone = await ctx.store.findPhone(phoneId)
  if (!phone) return
  const base = { accountId: phone.accountId, env: "live" as const, phoneId, groupId: notice.groupId, by: notice.by, atMs: notice.atMs }
  await emitGroupEvents(
    ctx,
    notice.changes.map((change) => ({ ...base, change })),
  )
}
