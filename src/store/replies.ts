/** A message that quotes another: one of ours (`msg_`) or a received one (`inmsg_`). */
export interface ReplyRow {
  id: string
  direction: "outbound" | "inbound"
  /** Who wrote it: our phone's number, or the sender's address. */
  fromAddress: string
  content: string
  atMs: number
}
