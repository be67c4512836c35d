/**
 * The `messageContextInfo.messageSecret` of a WhatsApp message, ours or a contact's. WhatsApp
 * encrypts what later refers to a message (an edit sent as `secretEncryptedMessage`, a poll vote,
 * an event response) with a key derived from that message's secret, so the secret of every
 * message is kept here (docs/live-whatsapp.md, "Encrypted edits"). Rows are per phone; the same
 * WhatsApp id may be stored once per chat and sender, since ids are chosen by the sender.
 */
export interface MessageSecret {
  phoneId: string
  /** The chat as the message arrived: a user's JID (PN or LID) in a 1:1 chat, or the group's. */
  chatJid: string
  waMessageId: string
  /** The author as the message named it (without device), PN or LID. */
  senderJid: string
  /** The author's other identity when the message named both (its LID for a PN, and back); null otherwise. */
  senderAltJid: string | null
  /** 32 bytes. */
  secret: Uint8Array
  createdAtMs: number
}

/** A stored secret's columns as both databases return them. */
export interface SecretRow {
  chat_jid: string
  sender_jid: string
  sender_alt_jid: string | null
  secret: Uint8Array
  created_at_ms: number
}

/** The row of a stored secret as the store hands it out. */
export function secretOf(phoneId: string, waMessageId: string, r: SecretRow): MessageSecret {
  return {
    phoneId,
    chatJid: r.chat_jid,
    waMessageId,
    senderJid: r.sender_jid,
    senderAltJid: r.sender_alt_jid,
    secret: new Uint8Array(r.secret),
    createdAtMs: Number(r.created_at_ms),
  }
}
