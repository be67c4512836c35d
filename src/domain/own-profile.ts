import { errors } from "../lib/errors"
import { toIso } from "../lib/time"
import { boundedOutsideText } from "../lib/outside-text"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import type { PhoneLinks } from "./phone-links"
import { resolvePhone } from "./phones"
import { pictureFromUrl, type PictureSource } from "./picture-source"
import { noSessionError } from "./wa-targets"
import type { PhoneRow } from "../store/phones"
import type { WhatsAppSession } from "../whatsapp/gateway"
import type { Environment } from "../lib/vocabulary"

/**
 * A phone's own profile as set through the API (docs/api.md § "Pictures and the phone's own profile"): name, about and picture.
 * Live keys change it on WhatsApp first, then keep what was set; test keys only keep it. It is
 * kept in the settings table, one entry per phone and environment (`phone_profile:<env>:<id>`),
 * so a test key never shows or changes what a live key set, the export carries it, and every node
 * sharing the database reads the same. The picture is the converted JPEG (about 20–80 KB).
 */
interface StoredProfile {
  name: string | null
  about: string | null
  /** Base64 of the 640 × 640 JPEG, or null. */
  picture: string | null
  pictureSetAtMs: number | null
  updatedAtMs: number | null
}

/** The profile the API returns. */
export interface OwnProfile {
  phoneId: string
  phoneNumber: string
  name: string | null
  about: string | null
  pictureUrl: string | null
  pictureSetAt: string | null
  updatedAt: string | null
}

export interface OwnProfileDeps {
  links: PhoneLinks
  pictures: PictureSource
}

/** Bounds WhatsApp puts on the texts (the app refuses longer): name 25 characters, about 139. */
export const PROFILE_NAME_MAX = 25
export const PROFILE_ABOUT_MAX = 139

const EMPTY: StoredProfile = { name: null, about: null, picture: null, pictureSetAtMs: null, updatedAtMs: null }

function keyOf(env: Environment, phoneId: string) {
  return `phone_profile:${env}:${phoneId}` as const
}

function parseProfile(raw: string | null): StoredProfile {
  return raw ? { ...EMPTY, ...(JSON.parse(raw) as Partial<StoredProfile>) } : { ...EMPTY }
}

async function readProfile(ctx: DomainContext, env: Environment, phoneId: string): Promise<StoredProfile> {
  return parseProfile(await ctx.store.getSetting(keyOf(env, phoneId)))
}

function view(phone: PhoneRow, p: StoredProfile): OwnProfile {
  return {
    phoneId: phone.id,
    phoneNumber: phone.phoneNumber,
    name: p.name === null ? null : boundedOutsideText(p.name, PROFILE_NAME_MAX),
    about: p.about === null ? null : boundedOutsideText(p.about, PROFILE_ABOUT_MAX),
    pictureUrl: p.picture ? `/v1/phone-numbers/${phone.id}/picture` : null,
    pictureSetAt: p.pictureSetAtMs === null ? null : toIso(p.pictureSetAtMs),
    updatedAt: p.updatedAtMs === null ? null : toIso(p.updatedAtMs),
  }
}

/** The phone's connected session for a live key; null for a test key (the sandbox changes nothing on WhatsApp). */
async function liveSession(ctx: DomainContext, deps: OwnProfileDeps, principal: Principal, phone: PhoneRow): Promise<WhatsAppSession | null> {
  if (principal.env === "test") return null
  const session = phone.connectionStatus === "connected" ? deps.links.sessionOf(phone.id) : null
  if (session === null) throw await noSessionError(ctx, phone, phone.id)
  return session
}

/** Runs one change on WhatsApp; a failure is WhatsApp's (502), and nothing is kept. */
async function onWhatsApp(what: string, change: () => Promise<void>): Promise<void> {
  try {
    await change()
  } catch (err) {
    throw errors.whatsappUnanswered(`WhatsApp did not accept the ${what}; retry after a moment`, err)
  }
}

/** Applies `change` to the stored profile and returns the new view. */
async function keep(ctx: DomainContext, principal: Principal, phone: PhoneRow, change: Partial<StoredProfile>): Promise<OwnProfile> {
  const key = keyOf(principal.env, phone.id)
  let next: StoredProfile = EMPTY
  await ctx.store.write(async (q) => {
    next = { ...parseProfile(await q.getSetting(key)), ...change, updatedAtMs: ctx.clock.nowMs() }
    await q.setSetting(key, JSON.stringify(next))
  })
  return view(phone, next)
}

/** GET-like read used by the picture route: the stored JPEG, or 404. */
export async function ownPicture(ctx: DomainContext, principal: Principal, phoneRef: string): Promise<Uint8Array> {
  const phone = await resolvePhone(ctx, principal.accountId, phoneRef)
  const p = await readProfile(ctx, principal.env, phone.id)
  if (!p.picture) throw errors.pictureNotFound(phoneRef)
  return new Uint8Array(Buffer.from(p.picture, "base64"))
}

/** `PATCH /v1/phone-numbers/{phoneId}/profile`: sets the push name and/or the about text. */
export async function updateOwnProfile(
  ctx: DomainContext,
  deps: OwnProfileDeps,
  principal: Principal,
  phoneRef: string,
  body: { name?: string; about?: string },
): Promise<OwnProfile> {
  const name = body.name?.trim()
  if (name === undefined && body.about === undefined) throw errors.validation(["Give name, about or both"])
  if (name !== undefined && name.length === 0) throw errors.validation(["name must not be empty"])
  const phone = await resolvePhone(ctx, principal.accountId, phoneRef)
  const session = await liveSession(ctx, deps, principal, phone)
  if (session && name !== undefined) await onWhatsApp("name", () => session.setProfileName(name))
  if (session && body.about !== undefined) await onWhatsApp("about text", () => session.setAbout(body.about!))
  return keep(ctx, principal, phone, { ...(name !== undefined ? { name } : {}), ...(body.about !== undefined ? { about: body.about } : {}) })
}

/** `PUT /v1/phone-numbers/{phoneId}/picture`: fetches, converts and sets the picture. */
export async function setOwnPicture(ctx: DomainContext, deps: OwnProfileDeps, principal: Principal, phoneRef: string, mediaUrl: string): Promise<OwnProfile> {
  const phone = await resolvePhone(ctx, principal.accountId, phoneRef)
  const session = await liveSession(ctx, deps, principal, phone)
  const jpeg = await pictureFromUrl(deps.pictures, mediaUrl)
  if (session) await onWhatsApp("picture", () => session.setPicture(null, jpeg))
  return keep(ctx, principal, phone, { picture: Buffer.from(jpeg).toString("base64"), pictureSetAtMs: ctx.clock.nowMs() })
}

/** `DELETE /v1/phone-numbers/{phoneId}/picture`: removes the picture. */
export async function removeOwnPicture(ctx: DomainContext, deps: OwnProfileDeps, principal: Principal, phoneRef: string): Promise<OwnProfile> {
  const phone = await resolvePhone(ctx, principal.accountId, phoneRef)
  const session = await liveSession(ctx, deps, principal, phone)
  if (session) await onWhatsApp("picture removal", () => session.removePicture(null))
  return keep(ctx, principal, phone, { picture: null, pictureSetAtMs: ctx.clock.nowMs() })
}

/** The phone's profile as last set through the API. */
export async function getOwnProfile(ctx: DomainContext, principal: Principal, phoneRef: string): Promise<OwnProfile> {
  const phone = await resolvePhone(ctx, principal.accountId, phoneRef)
  return view(phone, await readProfile(ctx, principal.env, phone.id))
}
