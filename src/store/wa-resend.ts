/**
 * The WhatsApp message of each outbound part as it was sent (Baileys' protobuf bytes), kept so a
 * retry receipt can be answered with the same content long after Baileys' own five-minute cache
 * forgot it. Rows are per phone: a phone only ever resends its own messages.
 */
export interface SentWaMessage {
  phoneId: string
  waMessageId: string
  /** `proto.Message` encoded. */
  message: Uint8Array
  sentAtMs: number
}
