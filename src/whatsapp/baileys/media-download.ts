import { createDecipheriv, createHash, createHmac, hkdfSync, timingSafeEqual } from "node:crypto"
import { open, rm } from "node:fs/promises"
import type { WAMessage, WASocket } from "@whiskeysockets/baileys"
import type { Clock } from "../../lib/clock"
import { MediaGoneError, MediaTooLargeError } from "../gateway"
import type { MediaDescriptor, MediaHkdfKind } from "./inbound-details"

/*
 * Downloads an inbound attachment from WhatsApp's media host and decrypts it on the way to disk.
 * Baileys' own download (downloadContentFromMessage) decrypts but checks neither the MAC nor the
 * hashes, so a corrupted or substituted file would be served as the customer's: here the
 * encrypted file's SHA-256 and its MAC are checked, and the plaintext's SHA-256, before the file
 * is handed over. Nothing is held whole in memory: each chunk is hashed, decrypted and written.
 */

/** WhatsApp appends the first 10 bytes of HMAC-SHA256(macKey, iv ‖ ciphertext) to every media file. */
const MAC_BYTES = 10
/** AES-CBC's block: the ciphertext is the plaintext padded up to it. */
const AES_BLOCK_BYTES = 16
/** A download that takes longer than this is abandoned (100 MiB at about 1 MB/s). */
export const MEDIA_DOWNLOAD_TIMEOUT_MS = 120_000

const HKDF_INFO: Record<MediaHkdfKind, string> = {
  image: "WhatsApp Image Keys",
  video: "WhatsApp Video Keys",
  audio: "WhatsApp Audio Keys",
  document: "WhatsApp Document Keys",
  sticker: "WhatsApp Image Keys",
}

/** The IV, AES key and MAC key a media key expands to (HKDF-SHA256, 112 bytes, no salt), as WhatsApp clients derive them. */
export function expandMediaKey(mediaKey: Uint8Array, kind: MediaHkdfKind): { iv: Buffer; cipherKey: Buffer; macKey: Buffer } {
  const expanded = Buffer.from(hkdfSync("sha256", mediaKey, Buffer.alloc(0), HKDF_INFO[kind], 112))
  return { iv: expanded.subarray(0, 16), cipherKey: expanded.subarray(16, 48), macKey: expanded.subarray(48, 80) }
}

export interface DownloadInput {
  descriptor: MediaDescriptor
  /** The media host WhatsApp's server named (`media_conn`), `host[:port]`. */
  host: string
  path: string
  maxBytes: number
  clock: Clock
  fetch?: (address: string, init: RequestInit) => Promise<Response>
  timeoutMs?: number
}

/**
 * Streams, checks and decrypts the file into `path` (created 0600, must not exist). 404 and 410
 * from the host are MediaGoneError; past `maxBytes` of plaintext, MediaTooLargeError; any failure
 * removes what was written. Returns the plaintext's size in bytes.
 */
export async function downloadMedia(input: DownloadInput): Promise<number> {
  const { descriptor, maxBytes } = input
  const url = `https://${input.host}${descriptor.directPath}`
  const aborter = new AbortController()
  const timer = input.clock.setTimer(input.timeoutMs ?? MEDIA_DOWNLOAD_TIMEOUT_MS, () => aborter.abort(new Error("the media download timed out")))
  const file = await open(input.path, "wx", 0o600)
  let ok = false
  try {
    const response = await (input.fetch ?? fetch)(url, { signal: aborter.signal, headers: { Origin: "https://web.whatsapp.com" }, redirect: "error" })
    if (response.status === 404 || response.status === 410) throw new MediaGoneError(response.status)
    if (!response.ok || !response.body) throw new Error(`WhatsApp's media host answered ${response.status}`)
    // The encrypted file is the plaintext padded to a block, plus the MAC.
    const maxEncrypted = maxBytes + AES_BLOCK_BYTES + MAC_BYTES
    const declared = Number(response.headers.get("content-length") ?? "0")
    if (declared > maxEncrypted) throw new MediaTooLargeError(maxBytes)
    const { iv, cipherKey, macKey } = expandMediaKey(Buffer.from(descriptor.mediaKey, "base64"), descriptor.hkdf)
    const encHash = createHash("sha256")
    const plainHash = createHash("sha256")
    const mac = createHmac("sha256", macKey).update(iv)
    const decipher = createDecipheriv("aes-256-cbc", cipherKey, iv)
    // The last MAC_BYTES of the stream are the MAC, not ciphertext: they are held back until the end.
    let held: Buffer = Buffer.alloc(0)
    let encryptedBytes = 0
    let plainBytes = 0
    const write = async (plain: Buffer) => {
      plainBytes += plain.length
      if (plainBytes > maxBytes) throw new MediaTooLargeError(maxBytes)
      plainHash.update(plain)
      if (plain.length > 0) await file.write(plain)
    }
    for await (const chunk of response.body) {
      encryptedBytes += chunk.length
      if (encryptedBytes > maxEncrypted) throw new MediaTooLargeError(maxBytes)
      encHash.update(chunk)
      const joined = held.length === 0 ? Buffer.from(chunk) : Buffer.concat([held, chunk])
      const cut = Math.max(0, joined.length - MAC_BYTES)
      const ciphertext = joined.subarray(0, cut)
      held = Buffer.from(joined.subarray(cut))
      mac.update(ciphertext)
      await write(decipher.update(ciphertext))
    }
    if (held.length !== MAC_BYTES) throw new Error("the media file is shorter than its MAC")
    if (!timingSafeEqual(mac.digest().subarray(0, MAC_BYTES), held)) throw new Error("the media file's MAC does not match its key")
    if (descriptor.fileEncSha256 && !encHash.digest().equals(Buffer.from(descriptor.fileEncSha256, "base64"))) {
      throw new Error("the media file does not match its encrypted hash")
    }
    await write(decipher.final())
    if (descriptor.fileSha256 && !plainHash.digest().equals(Buffer.from(descriptor.fileSha256, "base64"))) {
      throw new Error("the decrypted media does not match its hash")
    }
    ok = true
    return plainBytes
  } finally {
    timer.cancel()
    await file.close()
    if (!ok) await rm(input.path, { force: true })
  }
}

/** How long the sender's phone has to upload a file again; Baileys itself waits forever. */
export const MEDIA_REUPLOAD_TIMEOUT_MS = 30_000

/** The part of Baileys' socket a re-upload needs. */
export type ReuploadSocket = Pick<WASocket, "updateMediaMessage">

/**
 * Asks the sender's phone to upload the file again (Baileys' updateMediaMessage: a
 * `<receipt type="server-error">` answered by a `mediaretry` notification with the new direct
 * path). A refusal (the phone no longer has it, or answers with an error) is MediaGoneError; no
 * answer within MEDIA_REUPLOAD_TIMEOUT_MS is a plain error, so the next request may ask again.
 * wagate calls updateMediaMessage itself rather than through Baileys' downloadMediaMessage, whose
 * re-upload branch never runs since Baileys moved to fetch (WhiskeySockets/Baileys#2767), and
 * hands it the media key as bytes, which its retry key derivation requires (WhiskeySockets/Baileys#2729).
 */
export async function reuploadMedia(sock: ReuploadSocket, descriptor: MediaDescriptor, clock: Clock): Promise<MediaDescriptor> {
  const { key } = descriptor
  // Baileys' updateMediaMessage knows no ptvMessage (a round video note): it is a video to it.
  const field = descriptor.field === "ptvMessage" ? "videoMessage" : descriptor.field
  const message: WAMessage = {
    key: { remoteJid: key.remoteJid, id: key.id, fromMe: false, ...(key.participant ? { participant: key.participant } : {}) },
    message: { [field]: { mediaKey: Buffer.from(descriptor.mediaKey, "base64"), directPath: descriptor.directPath } },
  }
  const request = sock.updateMediaMessage(message)
  let timer: { cancel(): void } | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = clock.setTimer(MEDIA_REUPLOAD_TIMEOUT_MS, () => reject(new Error("the sender's phone did not answer the re-upload request")))
  })
  try {
    const updated = await Promise.race([request, timeout])
    const directPath = (updated.message?.[field] as { directPath?: string | null } | null | undefined)?.directPath
    if (!directPath?.startsWith("/")) throw new MediaGoneError(null)
    return { ...descriptor, directPath }
  } catch (err) {
    // Baileys rejects a refusal with a Boom carrying the mediaretry result's status (404, 412, 418).
    const status = (err as { output?: { statusCode?: unknown } } | null)?.output?.statusCode
    if (err instanceof MediaGoneError || typeof status === "number") throw err instanceof MediaGoneError ? err : new MediaGoneError(null)
    throw err
  } finally {
    timer?.cancel()
    // A request that lost the race must not surface later as an unhandled rejection.
    request.catch(() => undefined)
  }
}
