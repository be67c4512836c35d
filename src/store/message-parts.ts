import type { MessageStatusPatch } from "./messages"

/** One WhatsApp message of a live message; it follows the same status machine as messages. */
export interface PartRow extends MessageStatusPatch {
  messageId: string
  partIndex: number
  waMessageId: string
  /** The media URL this part sends, or null for the text part. */
  mediaUrl: string | null
  /** The kind of the downloaded media, recorded when the part is first handed to WhatsApp. */
  mediaKind: "image" | "video" | "audio" | "document" | null
}
