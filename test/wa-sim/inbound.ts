import { randomBytes } from "node:crypto"
import type { BinaryNode, proto } from "@whiskeysockets/baileys"
import type { DeviceBundle, SimAccount } from "./accounts"
import type { Addressing, SimContact } from "./contact"
import type { SimGroup } from "./groups"
import { encryptMedia, type MediaKind } from "./media-crypto"
import type { MediaHost } from "./media-host"
import { unixSeconds } from "./nodes"

/** What a contact can write. `message` passes any protobuf content through unchanged. */
export type InboundContent =
  | { text: string }
  | { image: Uint8Array; caption?: string; mimetype?: string }
  | { document: Uint8Array; fileName: string; mimetype: string; caption?: string }
  | { message: proto.IMessage }

export interface InboundOptions {
  /** Write in this group instead of 1:1. */
  group?: SimGroup
  /** Override how the stanza names the sender (default: the contact's mode, or the group's). */
  addressing?: Addressing
  /** Message id; a fresh `3EB0…` one by default. */
  id?: string
}

/** Encrypts and uploads an attachment as the contact's phone would, and returns its message fields. */
async function uploadAttachment(bytes: Uint8Array, kind: MediaKind, media: MediaHost, nowMs: number) {
  const encrypted = await encryptMedia(bytes, kind)
  const stored = media.put(encrypted.file)
  return {
    url: stored.url,
    directPath: stored.directPath,
    mediaKey: encrypted.mediaKey,
    fileSha256: encrypted.fileSha256,
    fileEncSha256: encrypted.fileEncSha256,
    fileLength: encrypted.fileLength,
    mediaKeyTimestamp: Math.floor(nowMs / 1000),
  }
}

/** Turns test-friendly content into the `proto.IMessage` a phone would send. */
export async function composeMessage(content: InboundContent, media: MediaHost, nowMs: number): Promise<proto.IMessage> {
  if ("text" in content) return { conversation: content.text }
  if ("image" in content) {
    const fields = await uploadAttachment(content.image, "image", media, nowMs)
    return { imageMessage: { ...fields, mimetype: content.mimetype ?? "image/jpeg", caption: content.caption } }
  }
  if ("document" in content) {
    const fields = await uploadAttachment(content.document, "document", media, nowMs)
    return {
      documentMessage: { ...fields, mimetype: content.mimetype, fileName: content.fileName, title: content.fileName, caption: content.caption },
    }
  }
  return content.message
}

/** A fresh message id in the form phones use. */
export function newMessageId(): string {
  return `3EB0${randomBytes(9).toString("hex").toUpperCase()}`
}

/** One companion device of an account and where a stanza for it goes now. */
export interface DeviceTarget {
  deviceId: number
  send(node: BinaryNode): void
}

/** Everything needed to write one message to the devices of an account. */
export interface InboundDelivery {
  from: SimContact
  account: SimAccount
  /** The account's companion devices and where a stanza for each goes (its connection, or the offline queue). */
  devices: DeviceTarget[]
  message: proto.IMessage
  options: InboundOptions
  nowMs: number
  /** Keys a device sent in its retry receipt, to open a new session with it (inbound-retry.ts). */
  retryBundle?: DeviceBundle
}

/**
 * Encrypts a message from a contact to every companion device of an account and hands it to each
 * device's target (pushed at once, or held while the device is away).
 *
 * 1:1: `<message from=pn sender_lid=…>` (PN-addressed) or `from=lid sender_pn=… addressing_mode="lid"`,
 * with one `pkmsg` (first contact, from the device's uploaded bundle) or `msg` per device.
 *
 * Group: `<message from=group participant=author participant_pn|participant_lid=…>` with the
 * contact's sender key distribution as a `pkmsg`/`msg` to each device that lacks it, then the
 * `skmsg` every device decrypts with that sender key.
 */
export async function deliverInbound(delivery: InboundDelivery): Promise<string> {
  const { from, account, devices, message, options, nowMs, retryBundle } = delivery
  const id = options.id ?? newMessageId()
  const group = options.group
  // A contact with no number has only its LID to be named by, whatever the chat's addressing.
  const addressing = from.noNumber ? "lid" : (options.addressing ?? group?.addressing ?? from.addressing)
  const senderJid = from.jid(addressing)
  // A contact that hides its number names only its LID (WhatsApp's username and number-privacy chats).
  const pn = (attr: string): Record<string, string> => (from.hidesNumber ? {} : { [attr]: from.pnJid })
  // The sender's username, under the attribute Baileys 7.0.0-rc14 reads for each kind of chat
  // (lib/Utils/decode-wa-message.js; WhiskeySockets/Baileys#2480).
  const username = (attr: string): Record<string, string> => (from.username === undefined ? {} : { [attr]: from.username })
  const senderAttrs: Record<string, string> = group
    ? addressing === "lid"
      ? { from: group.jid, participant: senderJid, ...pn("participant_pn"), addressing_mode: "lid", ...username("participant_username") }
      : { from: group.jid, participant: senderJid, participant_lid: from.lidJid, addressing_mode: "pn", ...username("participant_username") }
    : addressing === "lid"
      ? { from: senderJid, ...pn("sender_pn"), addressing_mode: "lid", ...username("peer_recipient_username") }
      : { from: senderJid, sender_lid: from.lidJid, ...username("peer_recipient_username") }
  const type = message.conversation != null || message.extendedTextMessage ? "text" : "media"
  const groupCipher = group ? await from.encryptForGroup(group.jid, senderJid, message) : undefined

  for (const device of devices) {
    const deviceId = device.deviceId
    const deviceJid = account.deviceJid(deviceId, "pn")
    const pairwise = async (content: proto.IMessage): Promise<BinaryNode> => {
      const bundle = (await from.hasSessionWith(deviceJid)) ? undefined : (retryBundle ?? account.takeBundle(deviceId))
      const { type: encType, ciphertext } = await from.encryptFor(deviceJid, bundle, content)
      return { tag: "enc", attrs: { v: "2", type: encType }, content: ciphertext }
    }
    const content: BinaryNode[] = []
    if (group && groupCipher) {
      if (from.markSenderKeyDelivered(group.jid, senderJid, deviceJid)) {
        content.push(await pairwise({ senderKeyDistributionMessage: { groupId: group.jid, axolotlSenderKeyDistributionMessage: groupCipher.distribution } }))
      }
      content.push({ tag: "enc", attrs: { v: "2", type: "skmsg" }, content: groupCipher.ciphertext })
    } else {
      content.push(await pairwise(message))
    }
    device.send({
      tag: "message",
      attrs: { ...senderAttrs, id, t: unixSeconds(nowMs), type, notify: from.name },
      content,
    })
  }
  return id
}
