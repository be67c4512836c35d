import { errors } from "../lib/errors"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { emitGroupEvents } from "./group-events"
import type { GroupDetail } from "./group-model"
import type { GroupService } from "./group-service"
import type { PhoneLinks } from "./phone-links"
import { resolvePhone } from "./phones"
import { pictureFromUrl, type PictureSource } from "./picture-source"
import { noSessionError } from "./wa-targets"
import type { PhoneRow } from "../store/phones"
import type { WhatsAppSession } from "../whatsapp/gateway"

/**
 * A group's picture (`PUT` / `DELETE /v1/groups/{groupId}/picture`; docs/api.md § "Pictures and the phone's own profile"). The
 * group's detail decides first: a group the phone is not in → 404 (the groups API's rule), and in
 * a group whose info only admins may edit (`settings.locked`) a phone that is not an admin → 403,
 * before the image is fetched. Live keys then send the picture IQ with the group as its target and
 * answer with the group's detail as WhatsApp then reports it; test keys change nothing on
 * WhatsApp (the image is still fetched and converted, so a bad one fails as it would live), and
 * sandbox groups keep no picture. Either way `group.updated` tells the change once: live, from
 * WhatsApp's picture notification, which reaches the phone that made it too; in the sandbox, here.
 */
export interface GroupPictureDeps {
  groups: GroupService
  links: PhoneLinks
  pictures: PictureSource
}

interface Checked {
  phone: PhoneRow
  session: WhatsAppSession | null
}

async function check(ctx: DomainContext, deps: GroupPictureDeps, principal: Principal, fromPhoneId: string, groupId: string): Promise<Checked> {
  const phone = await resolvePhone(ctx, principal.accountId, fromPhoneId)
  let session: WhatsAppSession | null = null
  if (principal.env === "live") {
    session = phone.connectionStatus === "connected" ? deps.links.sessionOf(phone.id) : null
    if (session === null) throw await noSessionError(ctx, phone, phone.id)
  }
  const detail: GroupDetail = await deps.groups.detail(principal, fromPhoneId, groupId)
  const me = detail.participants.find((p) => p.phoneNumber === phone.phoneNumber)
  if (detail.settings.locked && me !== undefined && !me.isAdmin) throw errors.groupNotAdmin(groupId, phone.phoneNumber)
  return { phone, session }
}

async function onWhatsApp(change: () => Promise<void>): Promise<void> {
  try {
    await change()
  } catch (err) {
    throw errors.whatsappUnanswered("WhatsApp did not accept the group picture; retry after a moment", err)
  }
}

/** The event a sandbox group's picture change emits, as WhatsApp's notification would live. */
async function sandboxPictureEvent(ctx: DomainContext, phone: PhoneRow, groupId: string, picture: "set" | "removed"): Promise<void> {
  const change = { kind: "updated" as const, changes: { picture } }
  await emitGroupEvents(ctx, [{ accountId: phone.accountId, env: "test", phoneId: phone.id, groupId, by: phone.phoneNumber, atMs: ctx.clock.nowMs(), change }])
}

/** Sets a group's picture from `mediaUrl`; returns the group's detail. */
export async function setGroupPicture(
  ctx: DomainContext,
  deps: GroupPictureDeps,
  principal: Principal,
  cmd: { fromPhoneId: string; groupId: string; mediaUrl: string },
): Promise<GroupDetail> {
  const { phone, session } = await check(ctx, deps, principal, cmd.fromPhoneId, cmd.groupId)
  const jpeg = await pictureFromUrl(deps.pictures, cmd.mediaUrl)
  if (session) await onWhatsApp(() => session.setPicture(cmd.groupId, jpeg))
  else await sandboxPictureEvent(ctx, phone, cmd.groupId, "set")
  return deps.groups.detail(principal, cmd.fromPhoneId, cmd.groupId)
}

/** Removes a group's picture; returns the group's detail. */
export async function removeGroupPicture(
  ctx: DomainContext,
  deps: GroupPictureDeps,
  principal: Principal,
  cmd: { fromPhoneId: string; groupId: string },
): Promise<GroupDetail> {
  const { phone, session } = await check(ctx, deps, principal, cmd.fromPhoneId, cmd.groupId)
  if (session) await onWhatsApp(() => session.removePicture(cmd.groupId))
  else await sandboxPictureEvent(ctx, phone, cmd.groupId, "removed")
  return deps.groups.detail(principal, cmd.fromPhoneId, cmd.groupId)
}
