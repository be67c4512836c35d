import type { BinaryNode, proto } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import { SimContact } from "./contact"
import type { DeviceTarget } from "./inbound"

/**
 * The account's phone as a Signal device (device 0), for what it sends the account's companion
 * devices itself: history sync notifications (history-sync.ts) and the messages the user types on
 * the phone (primary-echo.ts). It runs the same libsignal repository a contact does
 * (contact.ts), under the account's number and LID, so a companion really opens a session with
 * its own phone from the `pkmsg` and decrypts every later `msg` on it.
 *
 * Inferred, not from a source: the phone's Signal identity here is its own key pair, not the ADV
 * account key that signed the companion's identity; neither Baileys 7.0.0-rc14 nor whatsmeow
 * compares the two when decrypting.
 */
const phones = new WeakMap<SimAccount, SimContact>()

/** The Signal identity of an account's phone, created on first use. */
export function phoneOf(account: SimAccount): SimContact {
  let phone = phones.get(account)
  if (!phone) {
    phone = new SimContact({ phoneNumber: account.phoneNumber, lid: account.lid, name: "phone", autoAck: true, autoReceipts: "none" })
    phones.set(account, phone)
  }
  return phone
}

/**
 * Encrypts one message from the phone to each companion device in `targets` (a `pkmsg` from the
 * device's uploaded bundle the first time, `msg` after) and hands each its own
 * `<message …attrs><enc/></message>`.
 */
export async function sendFromPhone(options: {
  account: SimAccount
  targets: readonly DeviceTarget[]
  message: proto.IMessage
  attrs: Record<string, string>
}): Promise<void> {
  const { account, targets, message, attrs } = options
  const phone = phoneOf(account)
  for (const target of targets) {
    const deviceJid = account.deviceJid(target.deviceId, "pn")
    const bundle = (await phone.hasSessionWith(deviceJid)) ? undefined : account.takeBundle(target.deviceId)
    const { type, ciphertext } = await phone.encryptFor(deviceJid, bundle, message)
    const node: BinaryNode = { tag: "message", attrs, content: [{ tag: "enc", attrs: { v: "2", type }, content: ciphertext }] }
    target.send(node)
  }
}
