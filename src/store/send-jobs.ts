/** A live message waiting to be handed to WhatsApp (or for its acks). */
export interface SendJobRow {
  messageId: string
  phoneId: string
  createdAtMs: number
}
