import { createCipheriv, createHash, createHmac, randomBytes, randomUUID } from "node:crypto"
import { closeSync, openSync, rmSync } from "node:fs"
import { open } from "node:fs/promises"
import { dirname, join } from "node:path"
import type { MediaType, WASocket } from "@whiskeysockets/baileys"
import { createGarbagePacer } from "../../lib/garbage-pacer"
import { MEDIA_TEMP_PREFIX } from "../../lib/media-temp"
import type { BaileysModule } from "./auth-state"

/*
 * A media file encrypted and uploaded the way Baileys' prepareWAMessageMedia does it
 * (lib/Utils/messages-media.js, encryptedStream and getWAUploadToServer, in 7.0.0-rc14), but
 * with a reused read buffer, a Bun file sink and a Bun file stream as the upload body instead of
 * Node stream stages: those held 25 to 35 MiB of buffers each however large the file, which broke
 * the media memory budget (docs/performance.md § "Media of live sends"). The key derivation,
 * the URL and the headers come from Baileys' exported helpers; only the I/O is ours.
 */

/** WhatsApp appends the first 10 bytes of an HMAC-SHA256 over `iv ‖ ciphertext` to every media file. */
const MAC_BYTES = 10
/** How much of the plaintext is read, encrypted and written at a time. */
const READ_CHUNK_BYTES = 512 * 1024
/** Only the owner may read an encrypted copy of a customer's document. */
const ENC_FILE_MODE = 0o600

/** What the media message carries about one encrypted file. */
export interface EncryptedMedia {
  mediaKey: Buffer
  /** SHA-256 of the plaintext. */
  fileSha256: Buffer
  /** SHA-256 of the uploaded file (ciphertext and MAC), also its upload token. */
  fileEncSha256: Buffer
  fileLength: number
}

/** Where the media host keeps an uploaded file. */
export interface UploadedMedia {
  url: string
  directPath: string
}

/** No media host took the file; the part stays unsent and is tried again like any failed hand-off. */
export class MediaUploadError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "MediaUploadError"
  }
}

/** The part of Baileys' socket an upload needs: the media hosts and their auth token. */
export type MediaConnSource = Pick<WASocket, "refreshMediaConn">

/** The HTTP client an upload goes through; the global `fetch` unless a test passes its own. */
export type UploadFetch = (address: string, init: RequestInit) => Promise<Response>

/** Where an encrypted copy of `plainPath` is written: beside it, so a start's clean-up of leftovers finds it too. */
export function encPathFor(plainPath: string): string {
  return join(dirname(plainPath), `${MEDIA_TEMP_PREFIX}${randomUUID()}.enc`)
}

/**
 * Encrypts `plainPath` into a new file `encPath` (mode 0600): AES-256-CBC with PKCS#7 padding
 * under keys expanded from a fresh media key, then the MAC. The plaintext is read into one
 * reused buffer and the ciphertext goes out through a Bun file sink, flushed after every chunk,
 * so one chunk is in flight; the cipher's output buffers are collected as they pile up.
 */
export async function encryptMediaFile(baileys: Pick<BaileysModule, "getMediaKeys">, plainPath: string, encPath: string, mediaType: MediaType): Promise<EncryptedMedia> {
  const mediaKey = randomBytes(32)
  const { iv, cipherKey, macKey } = await baileys.getMediaKeys(mediaKey, mediaType)
  if (!macKey) throw new Error("Baileys derived no MAC key for the media key")
  const input = await open(plainPath, "r")
  let fd: number | undefined
  let sink: ReturnType<ReturnType<typeof Bun.file>["writer"]> | undefined
  try {
    // Created here with its mode, so the sink never makes it with the default one.
    fd = openSync(encPath, "wx", ENC_FILE_MODE)
    const out = (sink = Bun.file(fd).writer())
    const aes = createCipheriv("aes-256-cbc", cipherKey, iv)
    const hmac = createHmac("sha256", macKey).update(iv)
    const plainHash = createHash("sha256")
    const encHash = createHash("sha256")
    const pacer = createGarbagePacer()
    const put = async (bytes: Uint8Array) => {
      encHash.update(bytes)
      out.write(bytes)
      await out.flush()
      pacer.passed(bytes.length)
    }
    const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES)
    let fileLength = 0
    for (;;) {
      const { bytesRead } = await input.read(chunk, 0, chunk.length, null)
      if (bytesRead === 0) break
      const plain = chunk.subarray(0, bytesRead)
      fileLength += bytesRead
      plainHash.update(plain)
      const enc = aes.update(plain)
      hmac.update(enc)
      await put(enc)
    }
    const last = aes.final()
    hmac.update(last)
    await put(last)
    await put(hmac.digest().subarray(0, MAC_BYTES))
    return { mediaKey, fileSha256: plainHash.digest(), fileEncSha256: encHash.digest(), fileLength }
  } finally {
    // The sink was handed our descriptor: ending it leaves the descriptor to us to close.
    await Promise.resolve(sink?.end()).catch(() => {})
    await input.close()
    if (fd !== undefined) closeSync(fd)
  }
}

/**
 * Uploads an encrypted file to the media hosts WhatsApp named, in order, as Baileys'
 * getWAUploadToServer does: `POST https://{host}{MEDIA_PATH_MAP[type]}/{token}?auth=…&token=…`
 * with the token the file's URL-safe SHA-256. A host that answers without a URL makes the next
 * try use fresh hosts and auth. The body is a Bun file stream: read from disk as it is sent.
 */
export async function uploadMediaFile(
  baileys: Pick<BaileysModule, "encodeBase64EncodedStringForUpload" | "MEDIA_PATH_MAP" | "DEFAULT_ORIGIN">,
  sock: MediaConnSource,
  encPath: string,
  mediaType: MediaType,
  fileEncSha256: Uint8Array,
  fetchImpl: UploadFetch = (address, init) => fetch(address, init),
): Promise<UploadedMedia> {
  const token = baileys.encodeBase64EncodedStringForUpload(Buffer.from(fileEncSha256).toString("base64"))
  let conn = await sock.refreshMediaConn(false)
  const hosts = conn.hosts.map((h) => h.hostname)
  let lastFailure = "WhatsApp named no media host"
  for (const hostname of hosts) {
    const url = `https://${hostname}${baileys.MEDIA_PATH_MAP[mediaType]}/${token}?auth=${encodeURIComponent(conn.auth)}&token=${token}`
    try {
      const response = await fetchImpl(url, {
        method: "POST",
        body: Bun.file(encPath).stream(),
        headers: { "Content-Type": "application/octet-stream", Origin: baileys.DEFAULT_ORIGIN },
        duplex: "half",
      } as RequestInit)
      const answer = (await response.json().catch(() => undefined)) as { url?: string; direct_path?: string } | undefined
      if (answer?.url || answer?.direct_path) return { url: answer.url ?? "", directPath: answer.direct_path ?? "" }
      lastFailure = `media host ${hostname} answered HTTP ${response.status} without a URL`
      conn = await sock.refreshMediaConn(true)
    } catch (err) {
      lastFailure = `uploading to media host ${hostname} failed: ${err instanceof Error ? err.message : String(err)}`
    }
  }
  throw new MediaUploadError(`Media upload failed on all hosts (${lastFailure.slice(0, 256)})`)
}

/**
 * Encrypts and uploads a downloaded file; the encrypted copy is removed whatever happens. The
 * plaintext file stays: it belongs to the caller.
 */
export async function encryptAndUpload(
  baileys: Pick<BaileysModule, "getMediaKeys" | "encodeBase64EncodedStringForUpload" | "MEDIA_PATH_MAP" | "DEFAULT_ORIGIN">,
  sock: MediaConnSource,
  plainPath: string,
  mediaType: MediaType,
  fetchImpl?: UploadFetch,
): Promise<EncryptedMedia & UploadedMedia> {
  const encPath = encPathFor(plainPath)
  try {
    const encrypted = await encryptMediaFile(baileys, plainPath, encPath, mediaType)
    // What the encryption left since its last collection goes before the upload adds its own.
    Bun.gc(true)
    return { ...encrypted, ...(await uploadMediaFile(baileys, sock, encPath, mediaType, encrypted.fileEncSha256, fetchImpl)) }
  } finally {
    rmSync(encPath, { force: true })
  }
}
