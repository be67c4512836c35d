import type { SimAccount } from "./accounts"
import type { SimContact } from "./contact"
import { groupNotificationNode, groupPictureNode, type GroupActor, type GroupNotificationChange, type NotifiedGroup } from "./group-notifications"
import type { IqRequest } from "./iq-handlers"
import { newMessageId } from "./inbound"

/*
 * When the paired account itself changes a group, WhatsApp's server tells every device of every
 * member, the acting device included (README.md § "Group notifications": tulir/whatsmeow's
 * JoinedGroup.CreateKey exists so a client can recognise the `create` notification of the group
 * it just created, and its Reason "invite" marks the notification of a join by link the client
 * made itself). group-admin-iqs.ts and profile.ts call these once an IQ has been applied.
 */

/** The paired account as a notification's actor, or a contact as itself. */
export function actorOf(who: SimAccount | SimContact, me: SimAccount): GroupActor {
  return who === me ? "me" : (who as SimContact)
}

/** The `w:gp2` notification of a change the logged-in account made, to each of its devices. */
export function echoGroupChange(request: IqRequest, group: NotifiedGroup, changes: readonly GroupNotificationChange[]): void {
  const me = request.connection.login?.account
  if (!me || changes.length === 0) return
  const node = groupNotificationNode({ group, me, by: "me", id: newMessageId(), nowMs: request.world.nowMs() }, changes)
  request.world.notify(me, node)
}

/** The participants of a change as notifications name them; the change is left out when it names nobody. */
export function participantChange(kind: "add" | "remove" | "promote" | "demote", who: readonly (SimAccount | SimContact)[], me: SimAccount): GroupNotificationChange[] {
  return who.length === 0 ? [] : [{ kind, participants: who.map((w) => actorOf(w, me)) }]
}

/** The `picture` notification of a group picture the logged-in account set or removed. */
export function echoGroupPicture(request: IqRequest, group: NotifiedGroup, set: boolean): void {
  const me = request.connection.login?.account
  if (!me) return
  request.world.notify(me, groupPictureNode({ group, me, by: "me", id: newMessageId(), nowMs: request.world.nowMs() }, set))
}
