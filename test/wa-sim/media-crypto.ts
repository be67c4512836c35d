import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { getMediaKeys } from "@whiskeysockets/baileys"

/**
 * The media kinds the simulator sends and checks; each names its own HKDF info string in Baileys
 * (`md-msg-hist`: a history sync blob, history-sync.ts).
 */
export type MediaKind = "image" | "video" | "audio" | "document" | "sticker" | "md-msg-hist"

/** WhatsApp appends the first 10 bytes of an HMAC-SHA256 over `iv ‖ ciphertext` to every media file. */
const MAC_BYTES = 10

/** What the media host stores and the message carries, for one encrypted upload. */
export interface EncryptedMedia {
  mediaKey: Buffer
  /** SHA-256 of the plaintext. */
  fileSha256: Buffer
  /** SHA-256 of `file`, also the upload token. */
  fileEncSha256: Buffer
  fileLength: number
  /** `AES-256-CBC(plaintext) ‖ mac`, what is uploaded. */
  file: Buffer
}

function sha256(bytes: Uint8Array): Buffer {
  return createHash("sha256").update(bytes).digest()
}

/** The AES key, IV and MAC key of a media key, expanded with the kind's HKDF info as Baileys does. */
async function expandMediaKey(mediaKey: Uint8Array, kind: MediaKind): Promise<{ iv: Uint8Array; cipherKey: Uint8Array; macKey: Uint8Array }> {
  const { iv, cipherKey, macKey } = await getMediaKeys(mediaKey, kind)
  if (!macKey) throw new Error("Baileys returned no MAC key for the media key")
  return { iv, cipherKey, macKey }
}

/** Encrypts media the way a WhatsApp client does before uploading it. */
export async function encryptMedia(plaintext: Uint8Array, kind: MediaKind): Promise<EncryptedMedia> {
  const mediaKey = randomBytes(32)
  const { iv, cipherKey, macKey } = await expandMediaKey(mediaKey, kind)
  const cipher = createCipheriv("aes-256-cbc", cipherKey, iv)
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()])
  const mac = createHmac("sha256", macKey).update(iv).update(ciphertext).digest().subarray(0, MAC_BYTES)
  const file = Buffer.concat([ciphertext, mac])
  return { mediaKey, fileSha256: sha256(plaintext), fileEncSha256: sha256(file), fileLength: plaintext.length, file }
}

/**
 * Decrypts a downloaded media file and checks everything a careful recipient can: the encrypted
 * hash and the MAC before decrypting, the plaintext hash after. Baileys' own download checks none of
 * these, so a wrong key or a truncated upload would otherwise pass silently.
 */
export async function decryptMedia(
  file: Uint8Array,
  keys: { mediaKey: Uint8Array; kind: MediaKind; fileSha256?: Uint8Array | null; fileEncSha256?: Uint8Array | null },
): Promise<Buffer> {
  const bytes = Buffer.from(file)
  if (keys.fileEncSha256 && !sha256(bytes).equals(Buffer.from(keys.fileEncSha256))) throw new Error("media file does not match fileEncSha256")
  if (bytes.length < MAC_BYTES) throw new Error("media file is shorter than its MAC")
  const ciphertext = bytes.subarray(0, bytes.length - MAC_BYTES)
  const { iv, cipherKey, macKey } = await expandMediaKey(keys.mediaKey, keys.kind)
  const expectedMac = createHmac("sha256", macKey).update(iv).update(ciphertext).digest().subarray(0, MAC_BYTES)
  if (!timingSafeEqual(expectedMac, bytes.subarray(bytes.length - MAC_BYTES))) throw new Error("media MAC mismatch")
  const decipher = createDecipheriv("aes-256-cbc", cipherKey, iv)
  const plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()])
  if (keys.fileSha256 && !sha256(plaintext).equals(Buffer.from(keys.fileSha256))) throw new Error("decrypted media does not match fileSha256")
  return plaintext
}
