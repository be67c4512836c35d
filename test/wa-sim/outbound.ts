import { getBinaryNodeChild, jidDecode, normalizeMessageContent, proto, type BinaryNode } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import type { SimConnection } from "./connection"
import type { SimContact } from "./contact"
import type { SimGroup } from "./groups"
import { decryptMedia, type MediaKind } from "./media-crypto"
import { readMessageKinds, type MessageKinds } from "./message-kinds"
import type { MediaHost } from "./media-host"
import { readAction, type MessageAction } from "./message-actions"
import { childrenByTag, contentBytes, userOf } from "./nodes"
import { ChangeSignal } from "./wait"

/** A media attachment as its recipient sees it after downloading and decrypting it. */
export interface OutboundMedia {
  kind: MediaKind
  /** The plaintext, downloaded from the media host and decrypted (MAC and hashes checked). */
  bytes: Buffer
  mimetype?: string
  caption?: string
  fileName?: string
}

/** One message Baileys sent, as the simulated recipients decrypted it. */
export interface OutboundMessage {
  id: string
  /** The stanza's `to`: the contact's PN or LID jid, or the group jid. */
  to: string
  /** The 1:1 recipient, when `to` names a known contact. */
  contact?: SimContact
  /** The group, when sent to one. */
  group?: SimGroup
  /** The connection it arrived on; the server's ack goes back on it. */
  connection: SimConnection
  /** The sending account. */
  sender: SimAccount
  stanza: BinaryNode
  /** Every recipient device's decrypted copy (for a group: each member's copy of the `skmsg`); `deviceId` 0 is the phone. */
  copies: { contact: SimContact; deviceId: number; message: proto.IMessage }[]
  /** What could not be decrypted, by whom; empty when everything could. */
  errors: string[]
  /** The content as the first recipient read it, unwrapped (ephemeral, view once, …). */
  message?: proto.IMessage
  text?: string
  media?: OutboundMedia
  /** What the recipient's app reads besides text and media: a quote, mentions, a location, a contact card, a voice note. */
  kinds: MessageKinds
  /** A reaction, edit or revoke of an earlier message, as the recipients' apps read it (message-actions.ts). */
  action?: MessageAction
}

/** What reading an outbound stanza needs from the simulator. */
export interface OutboundContext {
  connection: SimConnection
  sender: { account: SimAccount; deviceId: number }
  contactFor(user: string): SimContact | undefined
  groupFor(id: string): SimGroup | undefined
  media: MediaHost
}

const MEDIA_FIELDS: readonly [keyof proto.IMessage, MediaKind][] = [
  ["imageMessage", "image"],
  ["videoMessage", "video"],
  ["audioMessage", "audio"],
  ["documentMessage", "document"],
  ["stickerMessage", "sticker"],
]

/**
 * Decrypts an outbound `<message>` the way its recipients would. Each `<participants><to>` copy is
 * decrypted by the contact it names (a group's copies carry sender key distributions, which the
 * contacts store); a group's `<enc type="skmsg">` is then decrypted by every member. The sender's
 * address on the contacts' side is always its PN device jid, so sessions stay on one address;
 * the group author is whichever identity (PN or LID) the group's addressing mode makes Baileys use.
 */
export async function readOutbound(stanza: BinaryNode, context: OutboundContext): Promise<OutboundMessage> {
  const { account, deviceId } = context.sender
  const to = stanza.attrs.to ?? ""
  const group = to.endsWith("@g.us") ? context.groupFor(userOf(to)) : undefined
  const contact = group ? undefined : context.contactFor(userOf(to))
  const senderAddress = account.deviceJid(deviceId, "pn")
  const groupAuthor = account.deviceJid(deviceId, stanza.attrs.addressing_mode === "lid" ? "lid" : "pn")
  const copies: OutboundMessage["copies"] = []
  const errors: string[] = []

  for (const recipient of childrenByTag(getBinaryNodeChild(stanza, "participants"), "to")) {
    const holder = context.contactFor(userOf(recipient.attrs.jid))
    const enc = getBinaryNodeChild(recipient, "enc")
    const ciphertext = contentBytes(enc)
    if (!holder || !ciphertext) continue
    const deviceId = jidDecode(recipient.attrs.jid)?.device ?? 0
    try {
      // Each of the contact's devices decrypts its own copy with its own identity.
      const device = holder.device(deviceId)
      const message = await device.decrypt(senderAddress, enc?.attrs.type === "pkmsg" ? "pkmsg" : "msg", ciphertext)
      if (message.senderKeyDistributionMessage) await device.acceptSenderKey(message.senderKeyDistributionMessage, groupAuthor)
      if (!group) copies.push({ contact: holder, deviceId, message })
    } catch (error) {
      errors.push(`${holder.phoneNumber} could not decrypt its copy: ${String(error)}`)
    }
  }

  const groupCiphertext = contentBytes(childrenByTag(stanza, "enc").find((enc) => enc.attrs.type === "skmsg"))
  if (group && groupCiphertext) {
    for (const member of group.members.filter((candidate) => candidate.onWhatsApp)) {
      try {
        copies.push({ contact: member, deviceId: 0, message: await member.decryptGroup(group.jid, groupAuthor, groupCiphertext) })
      } catch (error) {
        errors.push(`${member.phoneNumber} could not decrypt the group message: ${String(error)}`)
      }
    }
  }

  const message = normalizeMessageContent(copies[0]?.message) ?? undefined
  const outbound: OutboundMessage = {
    id: stanza.attrs.id ?? "",
    to,
    contact,
    group,
    connection: context.connection,
    sender: account,
    stanza,
    copies,
    errors,
    message,
    text: message?.conversation ?? message?.extendedTextMessage?.text ?? undefined,
    kinds: message ? readMessageKinds(message) : {},
  }
  const read = readAction(message, stanza)
  outbound.action = read.action
  errors.push(...read.errors)
  if (message) {
    try {
      outbound.media = await downloadAttachment(message, context.media)
    } catch (error) {
      errors.push(`the attachment could not be downloaded and decrypted: ${String(error)}`)
    }
  }
  return outbound
}

/** Downloads and decrypts the media of a message, if it has any. */
async function downloadAttachment(message: proto.IMessage, media: MediaHost): Promise<OutboundMedia | undefined> {
  for (const [field, kind] of MEDIA_FIELDS) {
    const attachment = message[field] as proto.Message.IDocumentMessage | null | undefined
    if (!attachment) continue
    const location = attachment.url ?? attachment.directPath
    if (!location || !attachment.mediaKey) throw new Error(`${field} has no url or media key`)
    const bytes = await decryptMedia(await media.download(location), {
      mediaKey: attachment.mediaKey,
      kind,
      fileSha256: attachment.fileSha256,
      fileEncSha256: attachment.fileEncSha256,
    })
    return {
      kind,
      bytes,
      mimetype: attachment.mimetype ?? undefined,
      caption: attachment.caption ?? undefined,
      fileName: attachment.fileName ?? undefined,
    }
  }
  return undefined
}

/**
 * Outbound messages in arrival order, and the queue tests read with `next`: each call returns
 * the oldest message to that recipient not returned before, waiting for one if needed. Lookups by
 * id go through a map, and only the newest `capacity` messages are kept (older ones are forgotten
 * by `byId`, `all` and `next`), so a long run with many phones stays flat in memory.
 */
export class Outbox {
  private readonly byIdIndex = new Map<string, OutboundMessage>()
  /** Messages no `next` call has returned yet, in arrival order (a Set keeps insertion order). */
  private readonly untaken = new Set<OutboundMessage>()
  private readonly changed = new ChangeSignal()
  private added = 0

  constructor(readonly capacity = 10_000) {}

  add(message: OutboundMessage): void {
    this.byIdIndex.delete(message.id)
    this.byIdIndex.set(message.id, message)
    this.untaken.add(message)
    this.added++
    while (this.byIdIndex.size > this.capacity) {
      const oldest = this.byIdIndex.values().next().value!
      this.byIdIndex.delete(oldest.id)
      this.untaken.delete(oldest)
    }
    this.changed.notify()
  }

  /** The kept messages in arrival order. */
  get all(): OutboundMessage[] {
    return [...this.byIdIndex.values()]
  }

  /** Messages added since the outbox was created, including forgotten ones. */
  get total(): number {
    return this.added
  }

  byId(id: string): OutboundMessage | undefined {
    return this.byIdIndex.get(id)
  }

  next(matches: (message: OutboundMessage) => boolean, options: { timeoutMs: number; what: string }): Promise<OutboundMessage> {
    return this.changed.waitFor(() => {
      for (const message of this.untaken) {
        if (!matches(message)) continue
        this.untaken.delete(message)
        return message
      }
      return undefined
    }, options)
  }
}
