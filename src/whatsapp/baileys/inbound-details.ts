import { boundedOutsideText } from "../../lib/outside-text"
import { mapPoll, type PollContentLike } from "./inbound-poll"
import type { InboundContact, InboundDetails, InboundLocation, InboundMedia, MediaKind } from "../gateway"

/*
 * The richer side of an inbound message, read from Baileys' payload without loading Baileys:
 * the message it quotes, its attachment (and the descriptor to fetch it later), a location and
 * a contact card (from its vCard). Pure functions: the input types are structural subsets of
 * `proto.IMessage`, so live objects and JSON fixtures both fit.
 */

/** Bytes as Baileys hands them out (Uint8Array), or base64 as JSON fixtures hold them. */
type BytesLike = Uint8Array | string | null | undefined
/** A protobuf Long (the `long` package), a number, or a numeric string. */
type LengthLike = number | string | { low: number; high: number } | null | undefined

/** The context every content may carry; only the quoted message's id is read. */
export interface ContextInfoLike {
  stanzaId?: string | null
}

/** The fields of a media message (image, video, audio, document, sticker) the mapping reads. */
export interface MediaContentLike {
  url?: string | null
  directPath?: string | null
  mediaKey?: BytesLike
  fileSha256?: BytesLike
  fileEncSha256?: BytesLike
  fileLength?: LengthLike
  mimetype?: string | null
  fileName?: string | null
  contextInfo?: ContextInfoLike | null
}

/** The media sub-messages, keyed as in `proto.IMessage`, with the HKDF info their keys expand with. */
const MEDIA_FIELDS = {
  imageMessage: { hkdf: "image", capKind: "image", mimetype: "image/jpeg" },
  videoMessage: { hkdf: "video", capKind: "video", mimetype: "video/mp4" },
  ptvMessage: { hkdf: "video", capKind: "video", mimetype: "video/mp4" },
  audioMessage: { hkdf: "audio", capKind: "audio", mimetype: "audio/ogg" },
  documentMessage: { hkdf: "document", capKind: "document", mimetype: "application/octet-stream" },
  stickerMessage: { hkdf: "sticker", capKind: "image", mimetype: "image/webp" },
} as const satisfies Record<string, { hkdf: MediaHkdfKind; capKind: MediaKind; mimetype: string }>

/** The HKDF info kinds of WhatsApp's media keys ("WhatsApp Image Keys", …). */
export type MediaHkdfKind = "image" | "video" | "audio" | "document" | "sticker"

/** The content fields the details read (after unwrapping). */
export interface DetailsContentLike extends PollContentLike {
  extendedTextMessage?: { contextInfo?: ContextInfoLike | null } | null
  imageMessage?: MediaContentLike | null
  videoMessage?: MediaContentLike | null
  ptvMessage?: MediaContentLike | null
  audioMessage?: MediaContentLike | null
  documentMessage?: MediaContentLike | null
  stickerMessage?: MediaContentLike | null
  locationMessage?: LocationLike | null
  liveLocationMessage?: LocationLike | null
  contactMessage?: { displayName?: string | null; vcard?: string | null; contextInfo?: ContextInfoLike | null } | null
  contactsArrayMessage?: { contacts?: readonly { displayName?: string | null; vcard?: string | null }[] | null; contextInfo?: ContextInfoLike | null } | null
}

interface LocationLike {
  degreesLatitude?: number | null
  degreesLongitude?: number | null
  name?: string | null
  address?: string | null
  contextInfo?: ContextInfoLike | null
}

/**
 * What the adapter keeps to fetch an attachment again: where it is, its key and hashes, and the
 * key of the message (for a re-upload request). Stored as JSON with the inbound row.
 */
export interface MediaDescriptor {
  v: 1
  hkdf: MediaHkdfKind
  /** The `proto.IMessage` field the media came in, for a re-upload request. */
  field: keyof typeof MEDIA_FIELDS
  directPath: string
  mediaKey: string
  fileSha256: string | null
  fileEncSha256: string | null
  key: { remoteJid: string; id: string; participant: string | null }
}

/** The key of the message an attachment came in. */
export interface DescriptorKey {
  remoteJid: string
  id: string
  participant?: string | null
}

/** Control, bidi-override and characters Windows forbids in a name. */
const UNSAFE_NAME_CHARS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069<>:"|?*]/g

/**
 * A sender's document name made safe for a Content-Disposition header and a download folder:
 * its last path segment, unsafe characters replaced, no leading dots, at most 120 characters.
 * (lib/media-sniff.ts has the same rules for outbound names but loads a type sniffer this eagerly
 * loaded adapter must not.)
 */
export function safeFileName(raw: string): string | null {
  let name = raw.normalize("NFC").replace(/\\/g, "/")
  name = name.slice(name.lastIndexOf("/") + 1).replace(UNSAFE_NAME_CHARS, "_").replace(/\s+/g, " ")
  name = name.replace(/^[\s.]+/, "").trim()
  if (name === "" || /^_+$/.test(name)) return null
  return Array.from(name).slice(0, 120).join("")
}

function base64Of(bytes: BytesLike): string | null {
  if (bytes === null || bytes === undefined) return null
  if (typeof bytes === "string") return bytes === "" ? null : bytes
  return bytes.length === 0 ? null : Buffer.from(bytes).toString("base64")
}

function lengthOf(value: LengthLike): number {
  if (typeof value === "number") return value
  if (typeof value === "string") return Number(value)
  if (value && typeof value === "object") return value.high * 4_294_967_296 + (value.low >>> 0)
  return 0
}

/** Reads a stored descriptor; throws on one this adapter did not write. */
export function parseDescriptor(json: string): MediaDescriptor {
  const d = JSON.parse(json) as MediaDescriptor
  if (d?.v !== 1 || typeof d.directPath !== "string" || typeof d.mediaKey !== "string" || !(d.field in MEDIA_FIELDS)) {
    throw new TypeError("not a media descriptor of this adapter")
  }
  return d
}

/** The attachment of a message, or null (no media, or none WhatsApp could serve: no key or path). */
export function mapMedia(content: DetailsContentLike, key: DescriptorKey): InboundMedia | null {
  for (const field of Object.keys(MEDIA_FIELDS) as (keyof typeof MEDIA_FIELDS)[]) {
    const media = content[field]
    if (!media) continue
    const mediaKey = base64Of(media.mediaKey)
    if (!mediaKey || !media.directPath?.startsWith("/")) return null
    const spec = MEDIA_FIELDS[field]
    const descriptor: MediaDescriptor = {
      v: 1,
      hkdf: spec.hkdf,
      field,
      directPath: media.directPath,
      mediaKey,
      fileSha256: base64Of(media.fileSha256),
      fileEncSha256: base64Of(media.fileEncSha256),
      key: { remoteJid: key.remoteJid, id: key.id, participant: key.participant ?? null },
    }
    const fileName = field === "documentMessage" && media.fileName ? safeFileName(media.fileName.slice(0, 1024)) : null
    const mimetype = (media.mimetype ?? "").split(";")[0]!.trim().toLowerCase()
    return {
      mimetype: /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mimetype) ? mimetype : spec.mimetype,
      sizeBytes: Math.max(0, lengthOf(media.fileLength)),
      fileName,
      capKind: spec.capKind,
      descriptor: JSON.stringify(descriptor),
    }
  }
  return null
}

/** Text from the sender, bounded and escaped; undefined when empty. */
function optionalText(value: string | null | undefined, maxChars: number): string | undefined {
  return value ? boundedOutsideText(value, maxChars) : undefined
}

/** A location message's place, or null when its coordinates are missing or out of range. */
export function mapLocation(location: LocationLike | null | undefined): InboundLocation | null {
  if (!location) return null
  const { degreesLatitude: latitude, degreesLongitude: longitude } = location
  if (typeof latitude !== "number" || typeof longitude !== "number") return null
  if (!(latitude >= -90 && latitude <= 90 && longitude >= -180 && longitude <= 180)) return null
  const name = optionalText(location.name, 256)
  const address = optionalText(location.address, 512)
  return { latitude, longitude, ...(name ? { name } : {}), ...(address ? { address } : {}) }
}

/** RFC 6350 §3.4: `\n`, `\,`, `\;` and `\\` in a value. */
function unescapeVcard(value: string): string {
  return value.replace(/\\([nN,;\\])/g, (_, c: string) => (c === "n" || c === "N" ? "\n" : c))
}

/** The vCard's lines, unfolded (RFC 6350 §3.2: a line starting with a space or tab continues the previous one). */
function vcardLines(vcard: string): string[] {
  return vcard.replace(/\r\n|\r/g, "\n").replace(/\n[ \t]/g, "").split("\n")
}

const E164 = /^\+[1-9][0-9]{7,14}$/

/** One TEL line as E.164: WhatsApp's `waid` parameter when present, else the value's digits if it starts with `+`. */
function telAsE164(params: string, value: string): string | null {
  const waid = /(?:^|;)waid=([0-9]+)/i.exec(params)?.[1]
  const candidate = waid ? `+${waid}` : value.trim().startsWith("+") ? `+${value.replace(/\D/g, "")}` : null
  return candidate && E164.test(candidate) ? candidate : null
}

/**
 * A contact card read from its vCard (RFC 6350): FN (else the display name) is the name, each
 * TEL that is an E.164 number a phone number (at most 5), the first ORG and EMAIL. Null when the
 * card has no name.
 */
export function parseVcard(vcard: string, displayName?: string | null): InboundContact | null {
  let name: string | undefined
  let organization: string | undefined
  let email: string | undefined
  const phoneNumbers: string[] = []
  for (const line of vcardLines(vcard).slice(0, 200)) {
    const colon = line.indexOf(":")
    if (colon < 0) continue
    const [prop = "", ...paramList] = line.slice(0, colon).split(";")
    const property = prop.replace(/^item\d+\./i, "").toUpperCase()
    const value = line.slice(colon + 1)
    if (property === "FN" && name === undefined) name = unescapeVcard(value).trim()
    else if (property === "ORG" && organization === undefined) organization = unescapeVcard(value.split(/(?<!\\);/)[0] ?? "").trim()
    else if (property === "EMAIL" && email === undefined) email = unescapeVcard(value).trim()
    else if (property === "TEL" && phoneNumbers.length < 5) {
      const number = telAsE164(paramList.join(";"), unescapeVcard(value))
      if (number && !phoneNumbers.includes(number)) phoneNumbers.push(number)
    }
  }
  const chosen = optionalText(name || displayName || "", 256)
  if (!chosen) return null
  const org = optionalText(organization, 256)
  const mail = optionalText(email, 320)
  return { name: chosen, phoneNumbers, ...(org ? { organization: org } : {}), ...(mail ? { email: mail } : {}) }
}

/** The first card of a contact message, or of a contacts array. */
export function mapContact(content: DetailsContentLike): InboundContact | null {
  const single = content.contactMessage
  if (single) return parseVcard(single.vcard ?? "", single.displayName)
  const first = content.contactsArrayMessage?.contacts?.[0]
  return first ? parseVcard(first.vcard ?? "", first.displayName) : null
}

/** The id of the message this one quotes, from whichever content carries the context. */
export function quotedIdOf(content: DetailsContentLike): string | null {
  for (const value of Object.values(content)) {
    const stanzaId = (value as { contextInfo?: ContextInfoLike | null } | null | undefined)?.contextInfo?.stanzaId
    if (typeof stanzaId === "string" && stanzaId !== "") return stanzaId
  }
  return null
}

/** Everything an inbound message carries beyond its type and text. */
export function mapDetails(content: DetailsContentLike, key: DescriptorKey): InboundDetails {
  return {
    quotedWaMessageId: quotedIdOf(content),
    media: mapMedia(content, key),
    location: mapLocation(content.locationMessage ?? content.liveLocationMessage),
    contact: mapContact(content),
    poll: mapPoll(content),
  }
}
