import { createCipheriv, hkdfSync, randomBytes } from "node:crypto"
import { proto } from "@whiskeysockets/baileys"

/*
 * Edits sent encrypted with the edited message's secret, as WhatsApp's apps do since May 2026
 * (README.md, "Encrypted edits"; WhiskeySockets/Baileys#2541). Every message a contact writes
 * carries 32 random bytes in `messageContextInfo.messageSecret`; an edit is then sent as
 * `secretEncryptedMessage { targetMessageKey, encPayload, encIv, secretEncType: MESSAGE_EDIT }`
 * whose payload is the plain edit (`protocolMessage` MESSAGE_EDIT) sealed with AES-256-GCM, no
 * additional data, under HKDF-SHA256(secret, info = original id ‖ original sender ‖ editor ‖
 * "Message Edit") (tulir/whatsmeow msgsecret.go, `generateMsgSecretKey` and `encryptMsgSecret`;
 * WhiskeySockets/Baileys#2547, #2690). Which identity the sender's app derives with, its LID or
 * its number, is the contact's `identity` (both occur, WhiskeySockets/Baileys#2690).
 */

/** Which of its identities a contact's app derives an edit's key with. */
export type EditIdentity = "lid" | "pn"

/** A fresh message secret. */
export function newMessageSecret(): Uint8Array {
  return new Uint8Array(randomBytes(32))
}

/** Seals `plain` for one use of a message's secret; the IV is 12 random bytes, the tag follows the ciphertext. */
export function sealWithMessageSecret(input: { secret: Uint8Array; targetId: string; senderJid: string; useCase: string; plain: Uint8Array }): { encPayload: Uint8Array; encIv: Uint8Array } {
  const info = Buffer.from(`${input.targetId}${input.senderJid}${input.senderJid}${input.useCase}`, "utf8")
  const key = Buffer.from(hkdfSync("sha256", input.secret, Buffer.alloc(0), info, 32))
  const encIv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", key, encIv)
  const sealed = Buffer.concat([cipher.update(input.plain), cipher.final(), cipher.getAuthTag()])
  return { encPayload: new Uint8Array(sealed), encIv: new Uint8Array(encIv) }
}

/** The plain edit inside a message, whichever way it is wrapped; undefined when the message is no edit. */
export function plainEditOf(message: proto.IMessage): proto.Message.IProtocolMessage | undefined {
  const protocol = message.editedMessage?.message?.protocolMessage ?? message.protocolMessage
  return protocol?.type === proto.Message.ProtocolMessage.Type.MESSAGE_EDIT ? protocol : undefined
}

/** The `secretEncryptedMessage` an app sends for `edit`, sealed with the edited message's secret. */
export function encryptedEdit(edit: proto.Message.IProtocolMessage, secret: Uint8Array, senderJid: string): proto.IMessage {
  const targetId = edit.key?.id ?? ""
  const plain = proto.Message.encode({ protocolMessage: edit }).finish()
  const sealed = sealWithMessageSecret({ secret, targetId, senderJid, useCase: "Message Edit", plain })
  return {
    secretEncryptedMessage: { targetMessageKey: edit.key, ...sealed, secretEncType: proto.Message.SecretEncryptedMessage.SecretEncType.MESSAGE_EDIT },
    messageContextInfo: { messageSecret: newMessageSecret() },
  }
}
