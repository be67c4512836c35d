import { noSessionError } from "./wa-targets"
import { AppError, errors } from "../lib/errors"
import type { MediaCache } from "../lib/media-cache"
import { boundedOutsideText } from "../lib/outside-text"
import { type InboundRow, type StoredInboundMedia } from "../store/inbound"
import { MediaGoneError, MediaTooLargeError, type MediaKind, type WhatsAppSession } from "../whatsapp/gateway"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { getInbound } from "./inbound"
import type { PhoneLinks } from "./phone-links"

/*
 * The bytes of an inbound attachment (`GET /v1/messages/inbound/{messageId}/media`). The first
 * request downloads it from WhatsApp into the media cache; later ones are served from disk.
 * When WhatsApp's host no longer has the file (404/410), the sender's phone is asked once to
 * upload it again; if that fails too the message is marked and answers 410 from then on
 * (docs/api.md § "Inbound media: GET /v1/messages/inbound/{messageId}/media").
 */

/** What the route serves. */
export interface InboundMediaFile {
  path: string
  sizeBytes: number
  mimetype: string
  /** The document's name, or one made from the id and the type. */
  fileName: string
}

export interface InboundMediaDeps {
  links: PhoneLinks
  cache: MediaCache
  /** Size caps per kind, the same as outbound media's. */
  maxBytes: Readonly<Record<MediaKind, number>>
}

/** A file name for media that came without one: the id and an extension from its type. */
export function fallbackFileName(id: string, mimetype: string): string {
  const subtype = mimetype.split("/")[1]?.split(/[;+]/)[0] ?? ""
  const ext = { jpeg: "jpg", quicktime: "mov", mpeg: "mp3", "octet-stream": "bin", plain: "txt" }[subtype] ?? subtype
  return /^[a-z0-9]{1,10}$/.test(ext) ? `${id}.${ext}` : `${id}.bin`
}

/** The inbound message's media file: from the cache, else downloaded now (once for concurrent requests). */
export async function inboundMediaFile(ctx: DomainContext, deps: InboundMediaDeps, principal: Principal, id: string): Promise<InboundMediaFile> {
  // The sandbox simulates no attachments, so a test key's inbound message has no media (404).
  return inboundRowMediaFile(ctx, deps, await getInbound(ctx, principal, id))
}

/** The same for a row the caller already found and may see (the dashboard's operator sees every account's). */
export async function inboundRowMediaFile(ctx: DomainContext, deps: InboundMediaDeps, row: InboundRow): Promise<InboundMediaFile> {
  const id = row.id
  const media = row.media
  if (!media) throw errors.inboundMediaNotFound(id)
  const describe = (sizeBytes: number, path: string): InboundMediaFile => ({
    path,
    sizeBytes,
    mimetype: media.mimetype,
    fileName: media.fileName ?? fallbackFileName(row.id, media.mimetype),
  })
  const cached = deps.cache.get(row.id)
  if (cached) return describe(cached.sizeBytes, cached.path)
  if (row.mediaGoneAtMs !== null) throw errors.inboundMediaGone(id)
  const maxBytes = deps.maxBytes[media.capKind]
  if (media.sizeBytes > maxBytes) throw errors.inboundMediaTooLarge(id, maxBytes)
  const file = await deps.cache.fill(row.id, (path) => download(ctx, deps, row, path, maxBytes))
  return describe(file.sizeBytes, file.path)
}

async function connectedSession(ctx: DomainContext, links: PhoneLinks, phoneId: string): Promise<WhatsAppSession> {
  const phone = await ctx.store.findPhone(phoneId)
  const session = phone?.connectionStatus === "connected" ? links.sessionOf(phoneId) : null
  if (!phone || !session) throw await noSessionError(ctx, phone, phoneId)
  return session
}

/** Downloads into `path`; on 404/410 asks once for a re-upload and tries again with the new descriptor. */
async function download(ctx: DomainContext, deps: InboundMediaDeps, row: InboundRow, path: string, maxBytes: number): Promise<number> {
  const session = await connectedSession(ctx, deps.links, row.phoneId)
  // Read again: a request that ran before this one may have stored a re-uploaded descriptor.
  const media = (await ctx.store.findInbound(row.id))?.media ?? row.media!
  try {
    return await session.downloadMedia(media.descriptor, path, maxBytes)
  } catch (err) {
    if (!(err instanceof MediaGoneError)) throw await failure(ctx, row, maxBytes, err)
    ctx.logger.info("WhatsApp no longer has an inbound media file; asking the sender's phone to upload it again", { inboundId: row.id, httpStatus: err.httpStatus })
  }
  let renewed: StoredInboundMedia
  try {
    renewed = { ...media, descriptor: await session.reuploadMedia(media.descriptor) }
    await ctx.store.write(async (q) => await q.updateInboundMediaDescriptor(row.id, renewed))
    return await session.downloadMedia(renewed.descriptor, path, maxBytes)
  } catch (err) {
    throw await failure(ctx, row, maxBytes, err)
  }
}

/** The API's error for a failed download; WhatsApp's final "gone" is remembered on the row. */
async function failure(ctx: DomainContext, row: InboundRow, maxBytes: number, err: unknown): Promise<unknown> {
  if (err instanceof MediaGoneError) {
    ctx.logger.warn("WhatsApp no longer has an inbound media file and the sender's phone did not upload it again", { inboundId: row.id })
    await ctx.store.write(async (q) => await q.markInboundMediaGone(row.id, ctx.clock.nowMs()))
    return errors.inboundMediaGone(row.id)
  }
  if (err instanceof MediaTooLargeError) return errors.inboundMediaTooLarge(row.id, maxBytes)
  if (err instanceof AppError) return err
  const reason = boundedOutsideText(err instanceof Error ? err.message : String(err))
  ctx.logger.warn("downloading an inbound media file from WhatsApp failed", { inboundId: row.id, reason })
  return errors.whatsappUnanswered("Downloading the media from WhatsApp failed; retry after a moment", err)
}
