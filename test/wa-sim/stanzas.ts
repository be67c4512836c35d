import { randomBytes } from "node:crypto"
import { S_WHATSAPP_NET, type BinaryNode } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import { unixSeconds } from "./nodes"

/** The stream errors a test can force, and what Baileys closes with. */
export type StreamErrorKind =
  /** `<stream:error code="401"><conflict type="device_removed"/>`: close 401; the device is unlinked. */
  | "logged_out"
  /** `<stream:error><conflict type="replaced"/>`: close 440. */
  | "replaced"
  /** `<stream:error code="515"/>`: close 515, reconnect at once. */
  | "restart"

/** Fresh QR refs for a registering client; each becomes one QR code on the client. */
export function newQrRefs(count: number): string[] {
  return Array.from({ length: count }, () => `2@${randomBytes(24).toString("base64")}`)
}

/** `<iq xmlns="md" type="set"><pair-device><ref/>…`: starts QR pairing on a registering client. */
export function pairDeviceIq(refs: string[]): BinaryNode {
  return {
    tag: "iq",
    attrs: { from: S_WHATSAPP_NET, type: "set", xmlns: "md" },
    content: [{ tag: "pair-device", attrs: {}, content: refs.map((ref) => ({ tag: "ref", attrs: {}, content: Buffer.from(ref) })) }],
  }
}

/** `<success>` for a known device; carries its LID, which Baileys stores as `creds.me.lid`. */
export function successNode(account: SimAccount, deviceId: number, nowMs: number): BinaryNode {
  const now = unixSeconds(nowMs)
  return {
    tag: "success",
    attrs: { t: now, props: "1", abprops: "1", location: "sim", creation: now, lid: account.deviceJid(deviceId, "lid") },
  }
}

/** `<failure reason=…>`: Baileys closes with the reason as status code (401: unknown or removed device). */
export function failureNode(reason: number): BinaryNode {
  return { tag: "failure", attrs: { reason: String(reason), location: "sim" } }
}

export function streamErrorNode(kind: StreamErrorKind): BinaryNode {
  if (kind === "logged_out") return { tag: "stream:error", attrs: { code: "401" }, content: [{ tag: "conflict", attrs: { type: "device_removed" } }] }
  if (kind === "replaced") return { tag: "stream:error", attrs: {}, content: [{ tag: "conflict", attrs: { type: "replaced" } }] }
  return { tag: "stream:error", attrs: { code: "515" } }
}

/** The server's ack of a client message: success, or with `error` the rejection Baileys reports as status ERROR. */
export function messageAckNode(id: string, to: string, nowMs: number, errorCode?: number): BinaryNode {
  return {
    tag: "ack",
    attrs: { class: "message", id, from: to, t: unixSeconds(nowMs), ...(errorCode === undefined ? {} : { error: String(errorCode) }) },
  }
}

/**
 * A recipient's receipt: delivered without `type`, `read` with it. 1:1 receipts come `from` the
 * recipient; group receipts come from the group with the member as `participant`.
 */
export function receiptNode(options: { id: string; from: string; participant?: string; read: boolean; nowMs: number }): BinaryNode {
  return {
    tag: "receipt",
    attrs: {
      from: options.from,
      ...(options.participant ? { participant: options.participant } : {}),
      id: options.id,
      t: unixSeconds(options.nowMs),
      ...(options.read ? { type: "read" } : {}),
    },
  }
}
