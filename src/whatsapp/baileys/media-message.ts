import { randomBytes } from "node:crypto"
import { readFile } from "node:fs/promises"
import type { MiscMessageGenerationOptions, proto, WAMessage, WASocket } from "@whiskeysockets/baileys"
import { imageThumbnail } from "../../lib/image-thumbnail"
import type { Logger } from "../../lib/logger"
import type { OutboundPart } from "../gateway"
import type { BaileysModule } from "./auth-state"
import { encryptAndUpload, type EncryptedMedia, type UploadedMedia } from "./media-upload"
import { userJidOf } from "./part-kinds"

/*
 * A media part sent without Baileys' own media preparation: wagate encrypts and uploads the
 * downloaded file itself (media-upload.ts), builds the media message the way
 * prepareWAMessageMedia and generateWAMessageContent would (lib/Utils/messages.js in
 * 7.0.0-rc14), and hands it to `relayMessage`, so Baileys still does the Signal encryption and
 * the fan-out to every device. What Baileys' sendMessage adds after relaying (a `messages.upsert`
 * of our own pending message) is not needed: the session reports nothing for it.
 */

type MediaPart = OutboundPart & { media: NonNullable<OutboundPart["media"]> }

/** The Baileys functions a media send uses; the module itself in production. */
export type MediaBaileys = Pick<
  BaileysModule,
  | "getMediaKeys"
  | "encodeBase64EncodedStringForUpload"
  | "MEDIA_PATH_MAP"
  | "DEFAULT_ORIGIN"
  | "generateThumbnail"
  | "getAudioDuration"
  | "getAudioWaveform"
  | "generateWAMessageFromContent"
  | "proto"
>

/** A path a shell reads as one word, unchanged. */
const SHELL_SAFE_PATH = /^[\w./-]+$/

/** What Baileys fills in from the plaintext besides the upload: a preview, dimensions, a duration. */
type Extras = { jpegThumbnail?: string; width?: number; height?: number; seconds?: number; waveform?: Uint8Array }

/**
 * The preview of the kind, from the plaintext file: an image's thumbnail and dimensions
 * (src/lib/image-thumbnail.ts, what Baileys' `generateThumbnail` makes, without the image library
 * it would look for), and from Baileys' own helpers a video's thumbnail (when ffmpeg is there),
 * the duration of audio, a voice note's waveform. Like Baileys, a preview that cannot be made is
 * left out rather than failing the send.
 */
export async function mediaExtras(baileys: MediaBaileys, part: MediaPart, log: Logger): Promise<Extras> {
  const { kind, path, voiceNote } = part.media
  const extras: Extras = {}
  try {
    if (kind === "image") Object.assign(extras, await imageThumbnail(new Uint8Array(await readFile(path))))
    // Baileys draws a video's thumbnail by running ffmpeg through a shell with the path in the
    // command line, so a data directory with characters a shell reads is left without one.
    if (kind === "video" && SHELL_SAFE_PATH.test(path)) {
      const { thumbnail, originalImageDimensions } = await baileys.generateThumbnail(path, kind, {})
      if (thumbnail) extras.jpegThumbnail = thumbnail
      if (originalImageDimensions) Object.assign(extras, originalImageDimensions)
    }
    if (kind === "audio") {
      extras.seconds = await baileys.getAudioDuration(path)
      if (voiceNote) extras.waveform = await baileys.getAudioWaveform(path)
    }
  } catch (err) {
    log.debug("no preview for a media part; it is sent without one", { waMessageId: part.waMessageId, err })
  }
  return extras
}

/** The WhatsApp message of an uploaded media part, with its caption, mentions and voice-note flag. */
export function mediaMessageContent(baileys: Pick<MediaBaileys, "proto">, part: MediaPart, file: EncryptedMedia & UploadedMedia, extras: Extras, nowMs: number): proto.Message {
  const { kind, mimetype, fileName, caption, voiceNote } = part.media
  const fields = {
    url: file.url,
    directPath: file.directPath,
    mediaKey: file.mediaKey,
    fileEncSha256: file.fileEncSha256,
    fileSha256: file.fileSha256,
    fileLength: file.fileLength,
    mediaKeyTimestamp: Math.floor(nowMs / 1000),
    mimetype,
    ...extras,
    // WhatsApp shows no caption on audio; a document always has a name (Baileys' default).
    ...(kind === "document" ? { fileName: fileName || "file" } : {}),
    ...(caption && kind !== "audio" ? { caption } : {}),
    ...(kind === "audio" && voiceNote ? { ptt: true } : {}),
    ...(part.mentions && part.mentions.length > 0 ? { contextInfo: { mentionedJid: part.mentions.map(userJidOf) } } : {}),
  }
  // Baileys gives every media message a message secret (reporting-utils.js, shouldIncludeReportingToken).
  return baileys.proto.Message.fromObject({ [`${kind}Message`]: fields, messageContextInfo: { messageSecret: randomBytes(32) } })
}

/**
 * Sends a media part: encrypts and uploads the file, builds the message, lets Baileys add the
 * reply context and relay it. Returns what was sent, for the resend store. A failed upload
 * throws (MediaUploadError) and leaves no encrypted copy behind.
 */
export async function sendMediaPart(
  baileys: MediaBaileys,
  sock: Pick<WASocket, "refreshMediaConn" | "relayMessage" | "user">,
  part: MediaPart,
  options: MiscMessageGenerationOptions & { messageId: string },
  deps: { nowMs: () => number; log: Logger },
): Promise<WAMessage> {
  const [file, extras] = await Promise.all([encryptAndUpload(baileys, sock, part.media.path, part.media.kind), mediaExtras(baileys, part, deps.log)])
  const content = mediaMessageContent(baileys, part, file, extras, deps.nowMs())
  const full = baileys.generateWAMessageFromContent(part.toJid, content, {
    userJid: sock.user?.id ?? "",
    messageId: options.messageId,
    timestamp: new Date(deps.nowMs()),
    ...(options.quoted ? { quoted: options.quoted } : {}),
  })
  await sock.relayMessage(part.toJid, full.message!, { messageId: full.key.id! })
  return full
}
