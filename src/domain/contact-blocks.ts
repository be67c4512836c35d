import { errors } from "../lib/errors"
import { isE164, isLidJid } from "../lib/formats"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import type { PhoneLinks } from "./phone-links"
import { resolvePhone } from "./phones"
import { SANDBOX_NOT_ON_WHATSAPP } from "./contact-sandbox"
import { connectedSession } from "./wa-targets"

/*
 * Blocking (`POST /v1/contacts/block`, `/unblock`, `GET /v1/contacts/blocked`). A live phone's
 * block list is WhatsApp's: it is read from WhatsApp on every request, so a block made on the
 * phone shows at once, on whichever node asks, after any restart, with nothing to keep in step.
 * Test keys keep a block list per sandbox phone in the store (docs/api.md § "Blocking").
 */

/** A contact and whether it is blocked now. */
export interface BlockState {
  contact: string
  blocked: boolean
}

export interface BlockCommand {
  fromPhoneId: string
  contact: string
}

/** A contact as an API client names one: E.164 or a `…@lid` JID; anything else is 400. */
export function requireContact(contact: string): void {
  if (!isE164(contact) && !isLidJid(contact)) throw errors.validation(["contact must be an E.164 number (+ and 8–15 digits) or a …@lid JID"])
}

/** The JID WhatsApp names a contact by: E.164 becomes `<digits>@s.whatsapp.net`, a LID stays. */
export function contactJid(contact: string): string {
  return isLidJid(contact) ? contact : `${contact.slice(1)}@s.whatsapp.net`
}

export function createContactBlocks(deps: { ctx: DomainContext; links: PhoneLinks }) {
  const { ctx, links } = deps

  async function setBlocked(principal: Principal, cmd: BlockCommand, blocked: boolean): Promise<BlockState> {
    requireContact(cmd.contact)
    const phone = await resolvePhone(ctx, principal.accountId, cmd.fromPhoneId)
    if (principal.env === "test") {
      if (cmd.contact === SANDBOX_NOT_ON_WHATSAPP) throw errors.contactNotOnWhatsApp(cmd.contact)
      await ctx.store.write(async (q) => await q.setSandboxBlock(phone.id, cmd.contact, blocked, ctx.clock.nowMs()))
      return { contact: cmd.contact, blocked }
    }
    return await setOnWhatsApp(phone.id, cmd.contact, blocked)
  }

  async function setOnWhatsApp(phoneId: string, contact: string, blocked: boolean): Promise<BlockState> {
    const session = await connectedSession(ctx, links, phoneId)
    try {
      await session.setBlocked(contactJid(contact), blocked)
    } catch (err) {
      throw errors.whatsappUnanswered(`WhatsApp did not ${blocked ? "block" : "unblock"} ${contact}; retry after a moment`, err)
    }
    return { contact, blocked }
  }

  async function listOnWhatsApp(phoneId: string): Promise<string[]> {
    const session = await connectedSession(ctx, links, phoneId)
    try {
      return await session.fetchBlocklist()
    } catch (err) {
      throw errors.whatsappUnanswered("Reading the block list from WhatsApp failed; retry after a moment", err)
    }
  }

  return {
    block: (principal: Principal, cmd: BlockCommand) => setBlocked(principal, cmd, true),
    unblock: (principal: Principal, cmd: BlockCommand) => setBlocked(principal, cmd, false),

    /** The phone's block list: E.164 when WhatsApp names the number, else the `…@lid` JID. */
    async list(principal: Principal, fromPhoneId: string): Promise<string[]> {
      const phone = await resolvePhone(ctx, principal.accountId, fromPhoneId)
      if (principal.env === "test") return (await ctx.store.listSandboxBlocks(phone.id)).map((row) => row.contact)
      return await listOnWhatsApp(phone.id)
    },

    /** The dashboard's operator: a phone's live block list, and blocking or unblocking on it (any account's phone). */
    phoneList: (phoneId: string) => listOnWhatsApp(phoneId),
    setOnPhone(phoneId: string, contact: string, blocked: boolean): Promise<BlockState> {
      requireContact(contact)
      return setOnWhatsApp(phoneId, contact, blocked)
    },
  }
}

export type ContactBlocks = ReturnType<typeof createContactBlocks>
