import { isLidJid } from "../lib/formats"
import type { MessageErrorCode } from "../lib/vocabulary"
import type { MessageRow } from "../store/messages"
import type { WhatsAppSession } from "../whatsapp/gateway"
import { canPost, type LiveLookups } from "./live-lookups"

/** Where a live message goes, after the recipient checks. */
export type Recipient =
  | { kind: "jid"; jid: string }
  /** The message cannot be sent to this recipient: it fails with this code. */
  | { kind: "refused"; errorCode: MessageErrorCode; message: string }
  /** WhatsApp did not answer the number check: the job stays and is tried again. */
  | { kind: "unanswered" }

/**
 * Checks a live message's recipient on the sending phone: a group the phone may post to, or a
 * number that is on WhatsApp (with the JID WhatsApp names for it).
 */
export async function resolveRecipient(lookups: LiveLookups, phoneId: string, message: MessageRow, session: WhatsAppSession): Promise<Recipient> {
  if (message.isGroup) {
    const groups = await lookups.groups(phoneId, session).catch(() => null)
    // Without a group list (WhatsApp did not answer) the send goes ahead and WhatsApp decides.
    const group = groups?.find((g) => g.id === message.toAddress)
    if (!groups || (group && canPost(group))) return { kind: "jid", jid: message.toAddress }
    return { kind: "refused", errorCode: "group_not_allowed", message: `Phone ${message.fromNumber} cannot post to group ${message.toAddress}` }
  }
  // A hidden number is known to WhatsApp only by this JID: there is no number to check, and the
  // chat it started is answered where it came from (docs/live-whatsapp.md § "Hidden numbers (LID)").
  if (isLidJid(message.toAddress)) return { kind: "jid", jid: message.toAddress }
  let jid: string | null
  try {
    jid = await lookups.recipientJid(phoneId, session, message.toAddress)
  } catch {
    return { kind: "unanswered" }
  }
  if (jid === null) return { kind: "refused", errorCode: "recipient_not_on_whatsapp", message: `${message.toAddress} is not on WhatsApp` }
  return { kind: "jid", jid }
}
