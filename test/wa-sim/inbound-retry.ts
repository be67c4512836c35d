import { getBinaryNodeChild, type BinaryNode, type proto } from "@whiskeysockets/baileys"
import type { DeviceBundle, SimAccount } from "./accounts"
import type { SimContact } from "./contact"
import { deliverInbound, type DeviceTarget, type InboundOptions } from "./inbound"
import { childBytes, readUintBE, requiredChildBytes, userOf } from "./nodes"

/** A 1:1 message a contact sent, as its app keeps it to answer a retry receipt with. */
interface SentInbound {
  from: SimContact
  account: SimAccount
  message: proto.IMessage
  options: InboundOptions
}

/** What became of a retry receipt the account's device sent to a contact. */
export type RetryAnswer = "resent" | "resent-new-session" | "unknown-message" | "group-not-modelled"

/**
 * The device's keys a retry receipt carries from its second request on (Baileys'
 * `sendRetryRequest` in lib/Socket/messages-recv.js, 7.0.0-rc14): `<registration>` beside
 * `<retry>`, and `<keys>` with `<identity>`, one one-time `<key>` and the signed `<skey>`.
 */
export function retryReceiptBundle(receipt: BinaryNode): DeviceBundle | undefined {
  const keys = getBinaryNodeChild(receipt, "keys")
  if (!keys) return undefined
  const signed = getBinaryNodeChild(keys, "skey")
  const oneTime = getBinaryNodeChild(keys, "key")
  return {
    registrationId: readUintBE(requiredChildBytes(receipt, "registration")),
    identityKey: requiredChildBytes(keys, "identity"),
    signedPreKey: {
      keyId: readUintBE(requiredChildBytes(signed, "id")),
      publicKey: requiredChildBytes(signed, "value"),
      signature: requiredChildBytes(signed, "signature"),
    },
    ...(oneTime ? { preKey: { keyId: readUintBE(requiredChildBytes(oneTime, "id")), publicKey: childBytes(oneTime, "value")! } } : {}),
  }
}

/**
 * The contacts' side of retry receipts for messages they sent: a device of the account that could
 * not decrypt a contact's message (it lost its Signal session, for example when a node was killed
 * before storing the session update) asks again with `<receipt type="retry">`, and the contact's
 * app re-encrypts the message with the same id for that device alone. When the receipt carries the
 * device's keys, the app first drops its session and opens a new one from them, so the resend is a
 * `pkmsg` the device can read with no session at all (whatsmeow's `handleRetryReceipt` in
 * tulir/whatsmeow retry.go; Baileys' `sendMessagesAgain` in lib/Socket/messages-recv.js). Only 1:1
 * messages are modelled; the contact remembers as many messages as the outbox holds.
 */
export class InboundRetries {
  private readonly sent = new Map<string, SentInbound>()
  /** Retry receipts answered, by message id, so a test can see the recovery happened. */
  readonly answered = new Map<string, RetryAnswer[]>()

  constructor(private readonly capacity: number) {}

  remember(id: string, sent: SentInbound): void {
    if (sent.options.group) return
    this.sent.set(id, sent)
    if (this.sent.size > this.capacity) this.sent.delete(this.sent.keys().next().value!)
  }

  /** Answers one retry receipt from `deviceId` of `account`; `target` is where a stanza for that device goes. */
  async answer(receipt: BinaryNode, account: SimAccount, target: DeviceTarget, nowMs: number): Promise<RetryAnswer> {
    const id = getBinaryNodeChild(receipt, "retry")?.attrs.id ?? receipt.attrs.id ?? ""
    const sent = this.sent.get(id)
    const answer = await this.resend(sent, receipt, account, target, nowMs)
    this.answered.set(id, [...(this.answered.get(id) ?? []), answer])
    return answer
  }

  private async resend(sent: SentInbound | undefined, receipt: BinaryNode, account: SimAccount, target: DeviceTarget, nowMs: number): Promise<RetryAnswer> {
    if (receipt.attrs.participant) return "group-not-modelled"
    if (!sent || sent.account !== account || !sent.from.owns(userOf(receipt.attrs.to))) return "unknown-message"
    const bundle = retryReceiptBundle(receipt)
    const deviceJid = account.deviceJid(target.deviceId, "pn")
    if (bundle) await sent.from.forgetSessionWith(deviceJid)
    await deliverInbound({ ...sent, devices: [target], nowMs, retryBundle: bundle })
    return bundle ? "resent-new-session" : "resent"
  }
}
