import type { Database } from "bun:sqlite"
import type { MessageErrorCode } from "../lib/vocabulary"
import type { MessageRow } from "../store/messages"
import { insertPart, listParts, setPartMediaKind, type PartRow } from "../store/message-parts"
import type { MediaKind, OutboundPart } from "../whatsapp/gateway"
import type { DomainContext } from "./context"
import { waMessageIdFor } from "./wa-ids"

/** What downloading one media URL came to (the fetcher's result, in the domain's terms). */
export type MediaDownload =
  | { ok: true; media: { kind: MediaKind; bytes: Uint8Array; mimetype: string; fileName: string } }
  | { ok: false; errorCode: MessageErrorCode; message: string }

export type FetchMedia = (url: string) => Promise<MediaDownload>

type Downloaded = MediaDownload & { ok: true }

/** Media kinds WhatsApp shows a caption under. */
const CAPTIONABLE: ReadonlySet<string> = new Set(["image", "video", "document"])

/** Writes a new live message's parts: one per media URL, or one text part. */
export function insertNewParts(db: Database, message: MessageRow): void {
  const urls = message.mediaUrls
  const parts = urls.length > 0 ? urls.map((url, i) => ({ url, i })) : [{ url: null, i: 0 }]
  for (const { url, i } of parts) {
    insertPart(db, { messageId: message.id, partIndex: i, waMessageId: waMessageIdFor(message.id, i), mediaUrl: url, status: "pending" })
  }
}

/**
 * Downloads the media of the parts still pending; the first failure ends it, since one part
 * that cannot be sent fails the whole message.
 */
export async function downloadMedia(
  fetchMedia: FetchMedia,
  parts: readonly PartRow[],
): Promise<{ ok: true; media: Map<number, Downloaded> } | (MediaDownload & { ok: false })> {
  const media = new Map<number, Downloaded>()
  for (const part of parts) {
    if (part.mediaUrl === null || part.status !== "pending") continue
    const download = await fetchMedia(part.mediaUrl)
    if (!download.ok) return download
    media.set(part.partIndex, download)
  }
  return { ok: true, media }
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
    await ctx.writer.write((db) => {
      for (const [partIndex, download] of media) setPartMediaKind(db, message.id, partIndex, download.media.kind)
      if (needsTextPart) {
        insertPart(db, { messageId: message.id, partIndex: parts.length, waMessageId: waMessageIdFor(message.id, parts.length), mediaUrl: null, status: "pending" })
      }
    })
    if (needsTextPart) all = listParts(ctx.db, message.id)
  }
  const out: OutboundPart[] = []
  // The text part goes first, like a message with attachments.
  for (const part of [...all].sort((a, b) => Number(b.mediaUrl === null) - Number(a.mediaUrl === null))) {
    if (part.status !== "pending") continue
    if (part.mediaUrl === null) {
      out.push({ waMessageId: part.waMessageId, toJid, text: message.content })
      continue
    }
    const m = media.get(part.partIndex)!.media
    const caption = hasText && part.partIndex === captionable?.partIndex ? message.content : undefined
    out.push({ waMessageId: part.waMessageId, toJid, media: { kind: m.kind, bytes: m.bytes, mimetype: m.mimetype, fileName: m.fileName, caption } })
  }
  return out
}
