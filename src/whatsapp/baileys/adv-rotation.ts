import { randomBytes } from "node:crypto"
import type { AuthenticationCreds } from "@whiskeysockets/baileys"

/*
 * The ADV secret rotation of an unpaired companion (WhiskeySockets/Baileys#2737, the fix proposed
 * in WhiskeySockets/Baileys#2765, and WhatsApp Web's own handling as both describe it). Since late
 * July 2026 the server may send `<notification type="companion_reg_refresh">` (with a
 * `companion_reg_refresh` or `pair-device-rotate-qr` child) while a companion shows its QR: it
 * retires the ADV secret that QR carries, so a phone that scans it reports a failed link.
 * WhatsApp Web then makes a new 32-byte secret and shows the same ref again with it.
 *
 * Baileys 7.0.0-rc14 drops the notification (and cannot even ack it before pairing: its ack reads
 * `creds.me.id`, WhiskeySockets/Baileys#2738), and keeps building QR codes from the secret it read
 * when pairing began. This module does what WhatsApp Web does, from outside Baileys: it acks the
 * notification, puts a new secret in the credentials (which Baileys reads again when it checks
 * `pair-success`), and rewrites every QR Baileys emits to carry the live secret.
 */

/** The children that make a `companion_reg_refresh` notification well-formed. */
const REFRESH_CHILDREN = new Set(["companion_reg_refresh", "pair-device-rotate-qr"])

/** The fields of a QR's data after `…#`: ref, noise key, identity key, ADV secret, platform. */
const ADV_FIELD = 3

/** The stanza as Baileys' socket hands it to a `CB:` listener. */
export interface NotificationNode {
  tag: string
  attrs: Record<string, string>
  content?: unknown
}

/** Puts `advSecretB64` in a pairing QR in place of the secret it carries; other text is returned as it is. */
export function withAdvSecret(qr: string, advSecretB64: string): string {
  const hash = qr.indexOf("#")
  const fields = qr.slice(hash + 1).split(",")
  if (fields.length <= ADV_FIELD) return qr
  fields[ADV_FIELD] = advSecretB64
  return `${qr.slice(0, hash + 1)}${fields.join(",")}`
}

/** True when the notification asks to rotate the ADV secret (its type and one of its two known children). */
export function isAdvRefresh(node: NotificationNode): boolean {
  if (node.tag !== "notification" || node.attrs.type !== "companion_reg_refresh") return false
  return Array.isArray(node.content) && node.content.some((child) => REFRESH_CHILDREN.has((child as { tag?: string }).tag ?? ""))
}

/** The ack WhatsApp Web sends for a notification: its id, class and type, back to where it came from. */
export function notificationAck(node: NotificationNode): { tag: "ack"; attrs: Record<string, string> } {
  return { tag: "ack", attrs: { id: node.attrs.id ?? "", to: node.attrs.from ?? "s.whatsapp.net", class: "notification", type: node.attrs.type ?? "" } }
}

export interface AdvRotation {
  /** A QR Baileys emitted, rewritten to carry the live secret; remembered for the next rotation. */
  qr(qr: string): string
  /**
   * Handles a `companion_reg_refresh` notification: the ack to send and the QR to show again
   * (null before any QR was shown), or null when there is nothing to do.
   */
  refresh(node: NotificationNode): { ack: ReturnType<typeof notificationAck>; qr: string | null } | null
}

/**
 * One socket's rotation state. `creds` is the object Baileys holds; `pairingByCode` is read at
 * each notification: in the pairing-code flow the secret is derived from the code exchange
 * (Baileys' `link_code_companion_reg` stage), so replacing it would break the link; Baileys acks
 * the notification itself there (it has set `creds.me` for the code), so nothing is done.
 */
export function createAdvRotation(creds: Pick<AuthenticationCreds, "advSecretKey">, pairingByCode: () => boolean, newSecret = () => randomBytes(32).toString("base64")): AdvRotation {
  let shown: string | null = null
  return {
    qr(qr) {
      shown = withAdvSecret(qr, creds.advSecretKey)
      return shown
    },
    refresh(node) {
      if (!isAdvRefresh(node) || pairingByCode()) return null
      creds.advSecretKey = newSecret()
      // The same ref again, with the new secret: WhatsApp Web re-renders the current QR, it does not advance.
      return { ack: notificationAck(node), qr: shown === null ? null : this.qr(shown) }
    },
  }
}
