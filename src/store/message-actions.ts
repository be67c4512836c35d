/** An inbound message a read receipt still has to cover: its WhatsApp id and who sent it where. */
export interface UnreadInbound {
  id: string
  waMessageId: string
  fromAddress: string
  groupId: string | null
}
