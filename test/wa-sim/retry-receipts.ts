import { encodeBigEndian, type BinaryNode } from "@whiskeysockets/baileys"
import type { SimConnection } from "./connection"
import type { SimContact } from "./contact"
import { unixSeconds } from "./nodes"
import type { Outbox, OutboundMessage } from "./outbound"

/** Which of the contact's addresses the retry receipt comes from. */
export type RetryFrom = "pn" | "lid"

export interface RetryRequestOptions {
  /** The address the receipt comes from. Default: the contact's own addressing mode. */
  from?: RetryFrom
  /** The `count` of the `<retry>` node (1 for the first request). Default 1. */
  count?: number
  /**
   * Whether the receipt carries a `<keys>` bundle. Baileys' `sendRetryRequest` adds one from the
   * second request on (or when it recreates the session), so the default is `count > 1`.
   */
  includeKeys?: boolean
  /** How long to wait for the resend. Default 5000. */
  timeoutMs?: number
}

/**
 * The `<receipt type="retry">` a recipient device sends when it cannot decrypt a message, built the
 * way Baileys' own `sendRetryRequest` builds it (messages-recv.js in 7.0.0-rc14): a `<retry>` child
 * with `count`, the original `id`, `t`, `v="1"` and `error="0"`, a `<registration>` with the
 * device's 4-byte registration id, and from the second try on a `<keys>` bundle (type, identity,
 * one one-time pre-key, the signed pre-key) with which the sender opens a fresh session. The server
 * relays it with the recipient as `from`; device 0 (a phone) is addressed without a device part.
 */
export async function retryReceiptNode(options: {
  contact: SimContact
  messageId: string
  from: RetryFrom
  count: number
  includeKeys: boolean
  nowMs: number
}): Promise<BinaryNode> {
  const from = options.contact.jid(options.from)
  const t = unixSeconds(options.nowMs)
  const content: BinaryNode[] = [
    { tag: "retry", attrs: { count: String(options.count), id: options.messageId, t, v: "1", error: "0" } },
    { tag: "registration", attrs: {}, content: encodeBigEndian(options.contact.registrationId) },
  ]
  if (options.includeKeys) {
    // The same keys a pre-key fetch hands out (and so one one-time pre-key used up), minus the
    // registration id, which the receipt carries on its own.
    const bundle = await options.contact.bundleNode(from)
    const keys = (Array.isArray(bundle.content) ? bundle.content : []).filter((child) => child.tag !== "registration")
    content.push({ tag: "keys", attrs: {}, content: keys })
  }
  return { tag: "receipt", attrs: { from, id: options.messageId, type: "retry", t }, content }
}

/**
 * Sends a contact's retry receipt for a message the account sent it, and resolves with the resend
 * as the contact decrypted it (a new outbound message with the same id). Rejects when the sender
 * does not resend in time or the contact cannot read the resend.
 */
export async function requestRetry(options: {
  original: OutboundMessage
  contact: SimContact
  outbox: Outbox
  connections: SimConnection[]
  nowMs: number
  request: RetryRequestOptions
}): Promise<OutboundMessage> {
  const { original, contact, outbox, request } = options
  if (original.group) throw new Error("retry receipts are modelled for 1:1 messages only")
  if (options.connections.length === 0) throw new Error(`no device of ${original.sender.phoneNumber} is connected to receive the retry receipt`)
  const count = request.count ?? 1
  const receipt = await retryReceiptNode({
    contact,
    messageId: original.id,
    from: request.from ?? contact.addressing,
    count,
    includeKeys: request.includeKeys ?? count > 1,
    nowMs: options.nowMs,
  })
  const resend = outbox.next((candidate) => candidate.id === original.id && candidate !== original && candidate.contact === contact, {
    timeoutMs: request.timeoutMs ?? 5_000,
    what: `a resend of ${original.id} to ${contact.jid(request.from ?? contact.addressing)}`,
  })
  for (const connection of options.connections) connection.send(receipt)
  const message = await resend
  if (message.errors.length > 0 || message.copies.length === 0) {
    throw new Error(`the resend of ${message.id} could not be read: ${message.errors.join("; ") || "no recipient copy"}`)
  }
  return message
}
