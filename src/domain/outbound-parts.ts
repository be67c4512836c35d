import type { StoreQueries } from "../store/store"
import type { ByteBudget } from "../lib/byte-budget"
import { discardFiles } from "../lib/media-temp"
import type { MessageErrorCode } from "../lib/vocabulary"
import type { MessageRow } from "../store/messages"
import { type PartRow } from "../store/message-parts"
import type { MediaKind, OutboundPart, WhatsAppSession } from "../whatsapp/gateway"
import type { DomainContext } from "./context"
import { bodyOf, decorateParts, firstPartOf, quoteOf, voiceNoteRefusal } from "./outbound-kinds"
import { waMessageIdFor } from "./wa-ids"

/**
 * What downloading one media URL came to (the fetcher's result, in the domain's terms): a file on
 * disk, never the bytes in memory, so a 100 MiB document costs the process a few buffers.
 */
export type MediaDownload =
  | { ok: true; media: { kind: MediaKind; path: string; sizeBytes: number; mimetype: string; fileName: string } }
  | { ok: false; errorCode: MessageErrorCode; message: string }

export type FetchMedia = (url: string) => Promise<MediaDownload>

type Downloaded = MediaDownload & { ok: true }

/**
 * The memory a part may hold while it is handed to WhatsApp, reserved from the process's media
 * budget (WAGATE_MEDIA_MEMORY_MB). Video, audio and documents stream from their file through
 * encryption and upload, and a stage collects its discarded buffers once RSS rose by 16 MiB
 * however large the file (docs/performance.md § "Media of live sends"), so a streamed part
 * reserves 16 MiB. An image is also read whole to draw its preview thumbnail, so it reserves at
 * least its size.
 */
export const MEDIA_STREAM_WINDOW_BYTES = 16 * 1024 * 1024

export function handOffMemoryBytes(part: OutboundPart): number {
  if (part.media === undefined) return 0
  return part.media.kind === "image" ? Math.max(part.media.sizeBytes, MEDIA_STREAM_WINDOW_BYTES) : MEDIA_STREAM_WINDOW_BYTES
}

/** Media kinds WhatsApp shows a caption under. */
const CAPTIONABLE: ReadonlySet<string> = new Set(["image", "video", "document"])

/** Writes a new live message's parts: one per media URL, or one text part. */
export async function insertNewParts(q: StoreQueries, message: MessageRow): Promise<void> {
  const urls = message.mediaUrls
  const parts = urls.length > 0 ? urls.map((url, i) => ({ url, i })) : [{ url: null, i: 0 }]
  for (const { url, i } of parts) {
    await q.insertPart({ messageId: message.id, partIndex: i, waMessageId: waMessageIdFor(message.id, i), mediaUrl: url, status: "pending" })
  }
}

/**
 * Downloads the media of the parts still pending; the first failure ends it, since one part
 * that cannot be sent fails the whole message, and removes the files already downloaded. On
 * success the caller owns the files and removes them with `discardMedia` after the send.
 */
export async function downloadMedia(
  fetchMedia: FetchMedia,
  parts: readonly PartRow[],
): Promise<{ ok: true; media: Map<number, Downloaded> } | (MediaDownload & { ok: false })> {
  const media = new Map<number, Downloaded>()
  for (const part of parts) {
    if (part.mediaUrl === null || part.status !== "pending") continue
    const download = await fetchMedia(part.mediaUrl)
    if (!download.ok) {
      discardMedia(media)
      return download
    }
    media.set(part.partIndex, download)
  }
  return { ok: true, media }
}

/** Removes the downloaded files of a message once its parts were handed over (or could not be). */
export function discardMedia(media: ReadonlyMap<number, Downloaded>): void {
  discardFiles([...media.values()].map((download) => download.media.path))
}

/**
 * Hands planned parts to WhatsApp one by one, each within the process's media memory budget.
 * Returns false when the socket failed mid-way: the job stays and is taken up on the next connect.
 */
export async function handOver(ctx: DomainContext, session: WhatsAppSession, budget: ByteBudget, messageId: string, parts: OutboundPart[]): Promise<boolean> {
  for (const part of parts) {
    const release = await budget.acquire(handOffMemoryBytes(part))
    try {
      await session.sendPart(part)
    } catch (err) {
      ctx.logger.warn("handing a part to WhatsApp failed; it is retried on reconnect", { messageId, err })
      return false
    } finally {
      release()
    }
  }
  return true
}

/**
 * Turns stored parts into WhatsApp messages: the text rides as the caption of the first image,
 * video or document; with no such media it is a text part of its own (docs/decisions.md § "Live sends"). The
 * kinds are recorded, so a re-send of the unacknowledged parts after a reconnect decides the
 * same way and never repeats the caption or adds a text message.
 */
export async function planParts(ctx: DomainContext, message: MessageRow, parts: PartRow[], media: Map<number, Downloaded>, toJid: string) {
  const kindOf = (p: PartRow) => media.get(p.partIndex)?.media.kind ?? p.mediaKind
  const hasText = message.content.trim() !== ""
  const captionable = parts.find((p) => p.mediaUrl !== null && CAPTIONABLE.has(kindOf(p) ?? ""))
  const needsTextPart = hasText && !captionable && !parts.some((p) => p.mediaUrl === null)
  let all = parts
  if (needsTextPart || media.size > 0) {
    await ctx.store.write(async (q) => {
      for (const [partIndex, download] of media) await q.setPartMediaKind(message.id, partIndex, download.media.kind)
      if (needsTextPart) {
        await q.insertPart({ messageId: message.id, partIndex: parts.length, waMessageId: waMessageIdFor(message.id, parts.length), mediaUrl: null, status: "pending" })
      }
    })
    if (needsTextPart) all = await ctx.store.listParts(message.id)
  }
  const out: OutboundPart[] = []
  // The text part goes first, like a message with attachments.
  for (const part of [...all].sort((a, b) => Number(b.mediaUrl === null) - Number(a.mediaUrl === null))) {
    if (part.status !== "pending") continue
    if (part.mediaUrl === null) {
      out.push({ waMessageId: part.waMessageId, toJid, ...bodyOf(message) })
      continue
    }
    const m = media.get(part.partIndex)!.media
    const caption = hasText && part.partIndex === captionable?.partIndex ? message.content : undefined
    out.push({ waMessageId: part.waMessageId, toJid, media: { kind: m.kind, path: m.path, sizeBytes: m.sizeBytes, mimetype: m.mimetype, fileName: m.fileName, caption } })
  }
  return out
}

/**
 * The parts to hand to WhatsApp, with their reply context, mentions and voice-note flag
 * (outbound-kinds.ts); or why the message cannot be sent as asked (a voice note that is not
 * Ogg/Opus), which fails it.
 */
export async function planOutbound(
  ctx: DomainContext,
  message: MessageRow,
  parts: PartRow[],
  media: Map<number, Downloaded>,
  toJid: string,
): Promise<{ ok: true; parts: OutboundPart[] } | { ok: false; errorCode: MessageErrorCode; message: string }> {
  const refusal = voiceNoteRefusal(message, media.values())
  if (refusal !== null) return { ok: false, errorCode: "media_unsupported_type", message: refusal }
  const planned = await planParts(ctx, message, parts, media, toJid)
  const first = firstPartOf(await ctx.store.listParts(message.id))
  return { ok: true, parts: decorateParts(message, planned, await quoteOf(ctx.store, message), first?.waMessageId) }
}
