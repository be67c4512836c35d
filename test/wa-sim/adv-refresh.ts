import { randomBytes } from "node:crypto"
import { S_WHATSAPP_NET, type BinaryNode } from "@whiskeysockets/baileys"
import { unixSeconds } from "./nodes"

/*
 * The server's ADV secret rotation of an unpaired companion, as WhiskeySockets/Baileys#2737 and
 * PR #2765 describe WhatsApp since late July 2026: `<notification type="companion_reg_refresh">`
 * retires the ADV secret the companion advertises in its QR. A phone that scans a QR carrying a
 * retired secret reports a failed link ("Couldn't link device"), and no `pair-success` follows.
 * WhatsApp Web answers the notification with a new 32-byte secret and shows the same ref again.
 *
 * In the pairing-code flow the secret is derived from the code exchange (stage two,
 * `companion_finish`), so a client that replaced it after that stage could no longer check
 * `pair-success`; oxidezap/whatsapp-rust PR #1163 keeps it there for that reason.
 */

/** The two children WhatsApp Web accepts in the notification (Baileys PR #2765). */
export type AdvRefreshChild = "companion_reg_refresh" | "pair-device-rotate-qr"

/** What the phone reports when the QR it scanned carries a secret the server has retired. */
export class RetiredQrSecretError extends Error {
  constructor(readonly ref: string) {
    super(`Couldn't link device: the QR with ref ${ref} carries a pairing secret the server has retired`)
    this.name = "RetiredQrSecretError"
  }
}

/** `<notification type="companion_reg_refresh" from="s.whatsapp.net"><companion_reg_refresh/></notification>` */
export function advRefreshNode(nowMs: number, child: AdvRefreshChild = "companion_reg_refresh"): BinaryNode {
  return {
    tag: "notification",
    attrs: { from: S_WHATSAPP_NET, type: "companion_reg_refresh", id: randomBytes(8).toString("hex"), t: unixSeconds(nowMs) },
    content: [{ tag: child, attrs: {} }],
  }
}
