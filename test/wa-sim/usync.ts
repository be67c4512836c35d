import { getBinaryNodeChild, type BinaryNode } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import type { SimContact } from "./contact"
import { childNodes, childrenByTag, contentBytes, userOf } from "./nodes"

/** Who is asking and who the simulator knows. */
export interface UsyncDirectory {
  me: SimAccount
  contactFor(user: string): SimContact | undefined
  /** The `status` protocol's answer for a user (profiles.ts). */
  statusOf?(user: string): BinaryNode
}

/**
 * Answers a `usync` query, the one lookup Baileys uses for device lists before sending, LID
 * mappings and `onWhatsApp`. Each `<user>` is named by `jid` or by `<contact>+E.164</contact>`;
 * each protocol in `<query>` gets one child in the answer:
 *
 * - `devices`: the account's companions (with the `key-index` Baileys requires for non-zero
 *   devices), or a contact's phone (device 0) and its other devices. The simulated phone itself (device 0 of the account) has
 *   no Signal identity, so it is never listed and Baileys encrypts no copy for it. A companion
 *   linked but never logged in to upload its keys (a pairing given up after the scan) is left
 *   out too, as the offline queue leaves it out: no key bundle could be fetched for it.
 * - `lid`: the user's LID.
 * - `contact`: `type="in"` when on WhatsApp, `"out"` otherwise (which `onWhatsApp` leaves out).
 *
 * Numbers not on WhatsApp get no devices and no LID. Other protocols are left unanswered.
 */
export function answerUsync(usync: BinaryNode, directory: UsyncDirectory): BinaryNode {
  const protocols = childNodes(getBinaryNodeChild(usync, "query")).map((node) => node.tag)
  const users = childrenByTag(getBinaryNodeChild(usync, "list"), "user").map((user) => {
    const phone = contentBytes(getBinaryNodeChild(user, "contact"))?.toString("utf8").replace(/^\+/, "")
    const jid = user.attrs.jid ?? `${phone ?? ""}@s.whatsapp.net`
    const id = user.attrs.jid ? userOf(user.attrs.jid) : (phone ?? "")
    const isMe = directory.me.owns(id)
    const contact = isMe ? undefined : directory.contactFor(id)
    const onWhatsApp = isMe || (contact?.onWhatsApp ?? false)
    const content: BinaryNode[] = []
    for (const protocol of protocols) {
      if (protocol === "devices") {
        const devices: BinaryNode[] = isMe
          ? [...directory.me.devices].filter(([, device]) => device.signedPreKey).map(([deviceId]) => ({ tag: "device", attrs: { id: String(deviceId), "key-index": String(deviceId) } }))
          : onWhatsApp && contact
            ? contact.deviceIds.map((deviceId): BinaryNode => ({ tag: "device", attrs: deviceId === 0 ? { id: "0" } : { id: String(deviceId), "key-index": String(deviceId) } }))
            : []
        content.push({ tag: "devices", attrs: {}, content: [{ tag: "device-list", attrs: {}, content: devices }] })
      } else if (protocol === "lid") {
        const lid = isMe ? directory.me.lidJid : onWhatsApp ? contact?.lidJid : undefined
        content.push({ tag: "lid", attrs: lid ? { val: lid } : {} })
      } else if (protocol === "status") {
        content.push(directory.statusOf?.(id) ?? { tag: "status", attrs: {} })
      } else if (protocol === "contact") {
        content.push({ tag: "contact", attrs: { type: onWhatsApp ? "in" : "out" } })
      }
    }
    return { tag: "user", attrs: { jid }, content } satisfies BinaryNode
  })
  return {
    tag: "usync",
    attrs: {},
    content: [
      { tag: "result", attrs: {} },
      { tag: "list", attrs: {}, content: users },
    ],
  }
}
