import { writeFile } from "node:fs/promises"
import { errors } from "../lib/errors"
import { isE164, isGroupJid } from "../lib/formats"
import type { MediaCache } from "../lib/media-cache"
import { boundedOutsideText, boundedOutsideTextOrNull } from "../lib/outside-text"
import type { BusinessProfileInfo, WhatsAppSession } from "../whatsapp/gateway"
import type { Principal } from "./api-keys"
import { contactJid, requireContact } from "./contact-blocks"
import type { ContactChecker } from "./contact-checks"
import { pictureCacheKey, SANDBOX_PICTURE_JPEG, sandboxGroupHasPicture, sandboxProfile } from "./contact-sandbox"
import type { DomainContext } from "./context"
import type { LiveLookups } from "./live-lookups"
import type { PhoneLinks } from "./phone-links"
import { resolvePhone } from "./phones"
import { connectedSession } from "./wa-targets"

/*
 * Contact profiles and pictures (`GET /v1/contacts/{contact}/profile`, `…/picture`,
 * `GET /v1/groups/{groupId}/picture`; docs/api.md § "Contact profiles"). Each lookup takes one
 * from the phone's hourly budget that number checks use: WhatsApp bans phones that look up whole
 * address books. Pictures are served from the media cache, keyed by WhatsApp's picture id, so a
 * picture is downloaded again only when it changed (WhatsApp's URLs expire, the id does not).
 */

/** The most bytes a picture may have: WhatsApp's are 640 × 640 JPEGs of well under this. */
export const PICTURE_MAX_BYTES = 2 * 1024 * 1024
/** About texts are at most 139 characters in WhatsApp's apps; a little room for what they miscount. */
const ABOUT_MAX_CHARS = 256
const BUSINESS_TEXT_MAX_CHARS = 512

export interface ContactProfile {
  contact: string
  phoneNumber: string | null
  lid: string | null
  name: string | null
  about: string | null
  aboutSetAt: string | null
  isBusiness: boolean
  business: BusinessProfileInfo | null
  pictureUrl: string | null
}

/** A picture on disk, ready to serve. */
export interface PictureFile {
  path: string
  sizeBytes: number
}

export interface ContactProfilesDeps {
  ctx: DomainContext
  links: PhoneLinks
  lookups: LiveLookups
  checks: ContactChecker
  cache: MediaCache
}

/** The wagate URL a picture is served at (relative to the server), with the phone it is looked up through. */
export function pictureUrl(kind: "contacts" | "groups", target: string, fromPhoneId: string): string {
  return `/v1/${kind}/${encodeURIComponent(target)}/picture?fromPhoneId=${encodeURIComponent(fromPhoneId)}`
}

function safeBusiness(business: BusinessProfileInfo | null): BusinessProfileInfo | null {
  if (business === null) return null
  const text = (value: string | null) => (value === null ? null : boundedOutsideText(value, BUSINESS_TEXT_MAX_CHARS))
  return {
    description: text(business.description),
    category: text(business.category),
    email: text(business.email),
    websites: business.websites.slice(0, 5).map((site) => boundedOutsideText(site, BUSINESS_TEXT_MAX_CHARS)),
    address: text(business.address),
  }
}

export function createContactProfiles(deps: ContactProfilesDeps) {
  const { ctx, links, lookups, checks, cache } = deps

  /** The JID to ask WhatsApp about: a number through the send cache (404 when not on WhatsApp), a LID as it is. */
  async function jidOf(phoneId: string, session: WhatsAppSession, contact: string): Promise<string> {
    if (!isE164(contact)) return contactJid(contact)
    let jid: string | null
    try {
      jid = await lookups.recipientJid(phoneId, session, contact)
    } catch (err) {
      throw errors.whatsappUnanswered("Checking the number with WhatsApp failed; retry after a moment", err)
    }
    if (jid === null) throw errors.contactNotOnWhatsApp(contact)
    return jid
  }

  async function ask<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } catch (err) {
      throw errors.whatsappUnanswered(`Reading the ${what} from WhatsApp failed; retry after a moment`, err)
    }
  }

  async function livePicture(session: WhatsAppSession, phoneId: string, jid: string, target: string): Promise<PictureFile> {
    const picture = await ask("picture", () => session.pictureOf(jid))
    if (picture === null) throw errors.contactPictureNotFound(target)
    const file = await cache.fill(pictureCacheKey("live", phoneId, jid, picture.pictureId), async (path) => {
      return await ask("picture", () => session.downloadPicture(picture.url, path, PICTURE_MAX_BYTES))
    })
    return { path: file.path, sizeBytes: file.sizeBytes }
  }

  async function sandboxPicture(phoneId: string, target: string, has: boolean): Promise<PictureFile> {
    if (!has) throw errors.contactPictureNotFound(target)
    const file = await cache.fill(pictureCacheKey("test", phoneId, target), async (path) => {
      await writeFile(path, SANDBOX_PICTURE_JPEG, { mode: 0o600, flag: "wx" })
      return SANDBOX_PICTURE_JPEG.length
    })
    return { path: file.path, sizeBytes: file.sizeBytes }
  }

  return {
    async profile(principal: Principal, contact: string, fromPhoneId: string): Promise<ContactProfile> {
      requireContact(contact)
      const phone = await resolvePhone(ctx, principal.accountId, fromPhoneId)
      const picture = (has: boolean) => (has ? pictureUrl("contacts", contact, fromPhoneId) : null)
      if (principal.env === "test") {
        const sandbox = sandboxProfile(contact)
        if (sandbox === null) throw errors.contactNotOnWhatsApp(contact)
        checks.charge("test", phone, 1)
        const about = sandbox.about
        const lid = isE164(contact) ? null : contact
        return { contact, phoneNumber: isE164(contact) ? contact : null, lid, name: sandbox.name, about: about?.text ?? null, aboutSetAt: about ? new Date(about.setAtMs).toISOString() : null, isBusiness: sandbox.business !== null, business: sandbox.business, pictureUrl: picture(sandbox.hasPicture) }
      }
      const session = await connectedSession(ctx, links, phone.id)
      checks.charge("live", phone, 1)
      const jid = await jidOf(phone.id, session, contact)
      const [about, business, pictureInfo, known] = await Promise.all([
        ask("about text", () => session.fetchAbout(jid)),
        ask("business profile", () => session.fetchBusinessProfile(jid)),
        ask("picture", () => session.pictureOf(jid)),
        ctx.store.findWaContact(phone.id, contact),
      ])
      const lid = known?.lid ?? (jid.endsWith("@lid") ? jid : null)
      const phoneNumber = known?.phoneNumber ?? (isE164(contact) ? contact : null)
      return {
        contact: phoneNumber ?? contact,
        phoneNumber,
        lid,
        name: boundedOutsideTextOrNull(known?.pushName ?? null),
        about: about === null ? null : boundedOutsideText(about.text, ABOUT_MAX_CHARS),
        aboutSetAt: about?.setAtMs != null ? new Date(about.setAtMs).toISOString() : null,
        isBusiness: business !== null,
        business: safeBusiness(business),
        pictureUrl: picture(pictureInfo !== null),
      }
    },

    /** A contact's picture, from the cache when WhatsApp's picture id has not changed. */
    async contactPicture(principal: Principal, contact: string, fromPhoneId: string): Promise<PictureFile> {
      requireContact(contact)
      const phone = await resolvePhone(ctx, principal.accountId, fromPhoneId)
      if (principal.env === "test") {
        const sandbox = sandboxProfile(contact)
        if (sandbox === null) throw errors.contactNotOnWhatsApp(contact)
        checks.charge("test", phone, 1)
        return await sandboxPicture(phone.id, contact, sandbox.hasPicture)
      }
      const session = await connectedSession(ctx, links, phone.id)
      checks.charge("live", phone, 1)
      return await livePicture(session, phone.id, await jidOf(phone.id, session, contact), contact)
    },

    /** A group's picture, the same way (no budget: the phone is in the group). */
    async groupPicture(principal: Principal, groupId: string, fromPhoneId: string): Promise<PictureFile> {
      if (!isGroupJid(groupId)) throw errors.validation(["groupId must be a group JID (…@g.us)"])
      const phone = await resolvePhone(ctx, principal.accountId, fromPhoneId)
      if (principal.env === "test") return await sandboxPicture(phone.id, groupId, sandboxGroupHasPicture(groupId))
      const session = await connectedSession(ctx, links, phone.id)
      return await livePicture(session, phone.id, groupId, groupId)
    },
  }
}

export type ContactProfiles = ReturnType<typeof createContactProfiles>
