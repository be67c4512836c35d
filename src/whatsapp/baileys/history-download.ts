import type { Readable } from "node:stream"
import { createInflate, inflate } from "node:zlib"
import { promisify } from "node:util"
import type { proto } from "@whiskeysockets/baileys"
import type { BaileysModule } from "./auth-state"

/*
 * Reads one history chunk the phone announced (docs/admin.md § "History on pairing"): the
 * INITIAL_BOOTSTRAP may ride inside the notification (`initialHistBootstrapInlinePayload`), every
 * other chunk is an encrypted blob on WhatsApp's media host, named by `directPath` and `mediaKey`
 * (media type `md-msg-hist`), deflated, a `HistorySync` protobuf inside (Baileys 7.0.0-rc14
 * lib/Utils/history.js `downloadHistory`; tulir/whatsmeow message.go `DownloadHistorySync`).
 *
 * Unlike Baileys' own download, the blob comes from the media host WhatsApp's server named for
 * this connection (`media_conn`, as inbound media does in media-download.ts), not from a fixed
 * host, and the inflated chunk is capped: a chunk is decoded whole (protobuf needs it), so the cap
 * bounds what one chunk can cost in memory.
 */

/** WhatsApp's chunks inflate to a few MiB; past this a chunk is refused rather than held. */
export const MAX_HISTORY_CHUNK_BYTES = 64 * 2 ** 20

const inflateAsync = promisify(inflate)

export class HistoryChunkTooLargeError extends Error {
  constructor(limit: number) {
    super(`the history chunk inflates past ${limit} bytes`)
  }
}

/** Inflates a deflated stream into one buffer, refusing more than `limit` bytes. */
export async function inflateBounded(source: Readable, limit: number): Promise<Buffer> {
  const inflater = createInflate()
  const parts: Buffer[] = []
  let size = 0
  const done = new Promise<void>((resolve, reject) => {
    inflater.on("data", (part: Buffer) => {
      size += part.length
      if (size > limit) {
        const error = new HistoryChunkTooLargeError(limit)
        source.destroy(error)
        inflater.destroy(error)
        reject(error)
        return
      }
      parts.push(part)
    })
    inflater.on("end", () => resolve())
    inflater.on("error", reject)
    source.on("error", (err) => inflater.destroy(err))
  })
  source.pipe(inflater)
  await done
  return Buffer.concat(parts, size)
}

export interface HistoryDownloadDeps {
  baileys: Pick<BaileysModule, "downloadContentFromMessage" | "proto">
  /** The media host WhatsApp's server named (`host[:port]`). */
  mediaHost(): Promise<string>
  maxBytes?: number
}

/** The chunk a notification names, decoded, and how many bytes it inflated to. */
export async function readHistoryChunk(deps: HistoryDownloadDeps, notification: proto.Message.IHistorySyncNotification): Promise<{ sync: proto.HistorySync; bytes: number }> {
  const limit = deps.maxBytes ?? MAX_HISTORY_CHUNK_BYTES
  const inline = notification.initialHistBootstrapInlinePayload
  if (inline && inline.length > 0) {
    const bytes = await inflateAsync(inline, { maxOutputLength: limit }).catch((err: NodeJS.ErrnoException) => {
      throw err.code === "ERR_BUFFER_TOO_LARGE" ? new HistoryChunkTooLargeError(limit) : err
    })
    return { sync: deps.baileys.proto.HistorySync.decode(bytes), bytes: bytes.length }
  }
  if (!notification.directPath || !notification.mediaKey) throw new Error("the history notification names no blob")
  const host = await deps.mediaHost()
  const stream = await deps.baileys.downloadContentFromMessage({ directPath: notification.directPath, mediaKey: notification.mediaKey }, "md-msg-hist", { host })
  const bytes = await inflateBounded(stream, limit)
  return { sync: deps.baileys.proto.HistorySync.decode(bytes), bytes: bytes.length }
}
