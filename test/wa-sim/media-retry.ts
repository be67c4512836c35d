import { randomBytes } from "node:crypto"
import { aesEncryptGCM, hkdf, proto, type BinaryNode } from "@whiskeysockets/baileys"
import type { SimConnection } from "./connection"
import type { MediaHost } from "./media-host"

/*
 * Media that WhatsApp's CDN no longer has, and the contact's phone asked to upload it again.
 *
 * A recipient that gets 404/410 for a direct path sends `<receipt type="server-error" id=…>`
 * with an `<encrypt>` (the stanza id, AES-GCM under the media key's retry key) and an
 * `<rmr jid from_me participant>` naming the message. The server relays it to the sender's phone,
 * which uploads the file again and answers through the server with
 * `<notification type="mediaretry" id=…>`: an `<encrypt><enc_p/><enc_iv/></encrypt>` holding a
 * MediaRetryNotification {stanzaId, directPath, result} under the same key, or an `<error>`.
 * README.md ("Inbound media, and media WhatsApp no longer has") names the public sources.
 */

/** What the contact's phone does when asked to upload a file again. */
export type MediaRetryAnswer =
  /** Uploads it again: the notification names a new direct path. */
  | "reupload"
  /** Answers with result NOT_FOUND (the phone deleted the file). */
  | "not_found"
  /** The server answers with an `<error code="…">` instead (the phone is unreachable). */
  | "error"

/** An attachment a contact sent, as the contact's phone remembers it. */
export interface SentMedia {
  messageId: string
  mediaKey: Uint8Array
  directPath: string
  file: Uint8Array
  answer: MediaRetryAnswer
}

/** The key the retry payloads are encrypted with, derived from the media key. */
function retryKey(mediaKey: Uint8Array): Uint8Array {
  return hkdf(mediaKey, 32, { info: "WhatsApp Media Retry Notification" })
}

/** Finds the attachment of a proto message (the fields a contact's upload filled in). */
export function attachmentOf(message: proto.IMessage): { mediaKey: Uint8Array; directPath: string } | null {
  for (const content of [message.imageMessage, message.documentMessage, message.videoMessage, message.audioMessage, message.stickerMessage]) {
    if (content?.mediaKey && content.directPath) return { mediaKey: content.mediaKey, directPath: content.directPath }
  }
  return null
}

/** The server's answer to a recipient's `server-error` receipt, after the sender's phone did what `sent.answer` says. */
export function mediaRetryNotification(receipt: BinaryNode, sent: SentMedia | undefined, media: MediaHost, nowMs: number): BinaryNode {
  const id = receipt.attrs.id!
  const rmr = Array.isArray(receipt.content) ? receipt.content.find((c) => c.tag === "rmr") : undefined
  const attrs = { id, type: "mediaretry", from: "s.whatsapp.net", t: String(Math.floor(nowMs / 1000)) }
  const rmrNode: BinaryNode = { tag: "rmr", attrs: { ...(rmr?.attrs ?? {}) } }
  if (!sent || sent.answer === "error") {
    return { tag: "notification", attrs, content: [rmrNode, { tag: "error", attrs: { code: "2" } }] }
  }
  let result = proto.MediaRetryNotification.ResultType.NOT_FOUND
  let directPath: string | undefined
  if (sent.answer === "reupload") {
    directPath = media.put(sent.file).directPath
    result = proto.MediaRetryNotification.ResultType.SUCCESS
  }
  const plaintext = proto.MediaRetryNotification.encode({ stanzaId: id, directPath, result }).finish()
  const iv = randomBytes(12)
  const ciphertext = aesEncryptGCM(plaintext, retryKey(sent.mediaKey), iv, Buffer.from(id))
  return {
    tag: "notification",
    attrs,
    content: [
      { tag: "encrypt", attrs: {}, content: [{ tag: "enc_p", attrs: {}, content: ciphertext }, { tag: "enc_iv", attrs: {}, content: iv }] },
      rmrNode,
    ],
  }
}

/** Relays a `server-error` receipt to the sender's phone and pushes its answer to the asking device. */
export function answerMediaRetry(connection: SimConnection, receipt: BinaryNode, sentMedia: ReadonlyMap<string, SentMedia>, media: MediaHost, nowMs: number): void {
  connection.send(mediaRetryNotification(receipt, sentMedia.get(receipt.attrs.id ?? ""), media, nowMs))
}
