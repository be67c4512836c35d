import { sha256Hex } from "../lib/secrets"

/**
 * The WhatsApp message id of one part of a message: "3EB0" and 18 upper-case hex characters
 * derived from the msg_ id and the part index (WhatsApp Web's own ids have this shape). The
 * same part always gets the same id, so a part re-sent after a crash or a reconnect is
 * recognised by WhatsApp and by us as the same message.
 */
export function waMessageIdFor(messageId: string, partIndex: number): string {
  return `3EB0${sha256Hex(`${messageId}:${partIndex}`).slice(0, 18).toUpperCase()}`
}
