import { noSessionError } from "./wa-targets"
import { errors } from "../lib/errors"
import { isGroupJid, isLidJid } from "../lib/formats"
import type { PresenceState } from "../lib/vocabulary"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import type { LiveLookups } from "./live-lookups"
import type { PhoneLinks } from "./phone-links"
import { resolvePhone } from "./phones"

export interface PresenceCommand {
  fromPhoneId: string
  to: string
  state: PresenceState
}

/**
 * Shows typing or recording in a chat, or stops it (`POST /v1/presence`). A number goes to the JID
 * the number check names (the cache sends use); a group JID as it is. Test keys: the phone must
 * exist, and nothing else happens (docs/api.md § "Presence: POST /v1/presence").
 */
export async function sendPresence(
  ctx: DomainContext,
  deps: { links: PhoneLinks; lookups: LiveLookups },
  principal: Principal,
  cmd: PresenceCommand,
): Promise<void> {
  const phone = await resolvePhone(ctx, principal.accountId, cmd.fromPhoneId)
  if (principal.env === "test") return
  const session = phone.connectionStatus === "connected" ? deps.links.sessionOf(phone.id) : null
  if (session === null) throw await noSessionError(ctx, phone, phone.id)
  let jid: string | null
  try {
    jid = isGroupJid(cmd.to) || isLidJid(cmd.to) ? cmd.to : await deps.lookups.recipientJid(phone.id, session, cmd.to)
  } catch (err) {
    throw errors.whatsappUnanswered("Checking the number with WhatsApp failed; retry after a moment", err)
  }
  if (jid === null) throw errors.validation([`${cmd.to} is not on WhatsApp`])
  try {
    await session.sendPresence(jid, cmd.state)
  } catch (err) {
    throw errors.whatsappUnanswered("Telling WhatsApp the presence failed; retry after a moment", err)
  }
}
