import type { BinaryNode, proto } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import type { Addressing, SimContact } from "./contact"
import type { SimGroup } from "./groups"
import type { DeviceTarget } from "./inbound"
import { unixSeconds } from "./nodes"
import { phoneOf, sendFromPhone } from "./phone-device"
import { profileOf } from "./profile"

/*
 * What the user types on the phone reaches the account's companion devices as a message from the
 * account itself (the phone, device 0). Sources: Baileys 7.0.0-rc14 lib/Utils/decode-wa-message.js
 * (`decodeMessageNode`: a `from` that is our own number or LID with `recipient` set is `fromMe`,
 * and the chat is the recipient; `extractAddressingContext` reads `peer_recipient_lid` /
 * `peer_recipient_pn` as the chat's other form; the decrypted `deviceSentMessage.message` is
 * unwrapped) and lib/Socket/messages-send.js (a sender wraps what its own other devices get in
 * `deviceSentMessage { destinationJid, message }`); tulir/whatsmeow message.go
 * (`parseMessageSource`: `from` is our own user, `Chat` is `recipient`, `RecipientAlt` is
 * `peer_recipient_pn` in a LID chat and `peer_recipient_lid` otherwise; `processProtocolParts`
 * unwraps `DeviceSentMessage`).
 *
 * A group message from the phone is an ordinary group stanza (`from` the group, `participant` our
 * own number or LID): the phone's sender key goes to each companion in a `pkmsg` the first time,
 * then every device decrypts the `skmsg` (Baileys reads `participant` as us and marks it fromMe).
 */

/** Where the user sent a message from the phone. */
export interface EchoTarget {
  to: SimContact | SimGroup
  message: proto.IMessage
  /** How the stanza names the chat (1:1: the contact's mode by default; groups: the group's). */
  addressing?: Addressing
  id: string
  nowMs: number
}

function isGroup(to: SimContact | SimGroup): to is SimGroup {
  return "participantJid" in to
}

/** `text` for text, `media` otherwise, as the server types every message stanza. */
function stanzaType(message: proto.IMessage): string {
  return message.conversation != null || message.extendedTextMessage ? "text" : "media"
}

/** The push name the phone's messages carry, when the account set one (`<presence name>`). */
function notifyOf(account: SimAccount): Record<string, string> {
  const name = profileOf(account).pushName
  return name ? { notify: name } : {}
}

/** A 1:1 message the user sent from the phone, as each companion device receives it. */
async function echoToContact(account: SimAccount, targets: readonly DeviceTarget[], echo: EchoTarget & { to: SimContact }): Promise<void> {
  const contact = echo.to
  const addressing = contact.noNumber ? "lid" : (echo.addressing ?? contact.addressing)
  const recipient = contact.jid(addressing)
  const chatAlt: Record<string, string> =
    addressing === "lid"
      ? { addressing_mode: "lid", ...(contact.hidesNumber ? {} : { peer_recipient_pn: contact.pnJid }) }
      : { peer_recipient_lid: contact.lidJid }
  const attrs = {
    from: addressing === "lid" ? account.lidJid : account.pnJid,
    recipient,
    ...chatAlt,
    id: echo.id,
    t: unixSeconds(echo.nowMs),
    type: stanzaType(echo.message),
    ...notifyOf(account),
  }
  await sendFromPhone({ account, targets, message: { deviceSentMessage: { destinationJid: recipient, message: echo.message } }, attrs })
}

/** A group message the user sent from the phone, as each companion device receives it. */
async function echoToGroup(account: SimAccount, targets: readonly DeviceTarget[], echo: EchoTarget & { to: SimGroup }): Promise<void> {
  const group = echo.to
  const phone = phoneOf(account)
  const lid = (echo.addressing ?? group.addressing) === "lid"
  const participant = lid ? account.lidJid : account.pnJid
  const { ciphertext, distribution } = await phone.encryptForGroup(group.jid, participant, echo.message)
  const attrs = {
    from: group.jid,
    participant,
    ...(lid ? { participant_pn: account.pnJid, addressing_mode: "lid" } : { participant_lid: account.lidJid, addressing_mode: "pn" }),
    id: echo.id,
    t: unixSeconds(echo.nowMs),
    type: stanzaType(echo.message),
    ...notifyOf(account),
  }
  for (const target of targets) {
    const content: BinaryNode[] = []
    const deviceJid = account.deviceJid(target.deviceId, "pn")
    if (phone.markSenderKeyDelivered(group.jid, participant, deviceJid)) {
      // The sender key rides in its own pairwise message, collected here and merged below.
      const collected: BinaryNode[] = []
      await sendFromPhone({
        account,
        targets: [{ deviceId: target.deviceId, send: (node) => collected.push(node) }],
        message: { senderKeyDistributionMessage: { groupId: group.jid, axolotlSenderKeyDistributionMessage: distribution } },
        attrs,
      })
      content.push(...(collected[0]!.content as BinaryNode[]))
    }
    content.push({ tag: "enc", attrs: { v: "2", type: "skmsg" }, content: ciphertext })
    target.send({ tag: "message", attrs, content })
  }
}

/** Sends what the user typed on the phone to the account's companion devices (see the file comment). */
export async function sendEcho(account: SimAccount, targets: readonly DeviceTarget[], echo: EchoTarget): Promise<void> {
  const to = echo.to
  if (isGroup(to)) await echoToGroup(account, targets, { ...echo, to })
  else await echoToContact(account, targets, { ...echo, to })
}
