import { decodeJid, receiptAtMs, sameUser, type OutboundSignal } from "./mapping"

/*
 * Delivery receipts as they arrive on the wire. Baileys consolidates the events it buffers, and
 * after a reconnect it buffers the whole offline burst until WhatsApp's end-of-queue marker: a
 * delivery and a read of the same message that both waited offline become one `messages.update`
 * with the read status alone, and the delivery is lost (docs/live-whatsapp.md § "Inbound
 * messages"). A `CB:receipt` listener sees every receipt before that, so wagate takes deliveries
 * from there too; the status machine keeps the first of each and a late delivery after the read
 * only fills `deliveredAt`, so the same delivery seen twice changes nothing.
 */

/** A raw `<receipt>` stanza as `sock.ws.on("CB:receipt")` delivers it. */
export interface ReceiptNode {
  tag: string
  attrs: Record<string, string | undefined>
  content?: unknown
}

/** The connected account's own ids, whose receipts (from its other devices) are not deliveries. */
export interface SelfIds {
  id?: string | null
  lid?: string | null
}

/**
 * The delivered signals of a delivery receipt (a `<receipt>` without `type`) from a recipient:
 * one for its `id` and one for each `<list><item id/>` it names. Receipts of other types (read,
 * retry, sender, …) and receipts from our own devices give nothing here.
 */
export function mapRawDeliveryReceipt(node: ReceiptNode, self: SelfIds, nowMs: number): OutboundSignal[] {
  if (node.tag !== "receipt" || node.attrs.type !== undefined) return []
  const author = node.attrs.participant ?? node.attrs.from
  if (!decodeJid(author) || sameUser(author, self.id) || sameUser(author, self.lid)) return []
  const atMs = receiptAtMs(node.attrs.t, nowMs)
  const ids = [node.attrs.id, ...listedIds(node.content)].filter((id): id is string => !!id)
  return [...new Set(ids)].map((waMessageId) => ({ kind: "receipt", waMessageId, receipt: "delivered", atMs }))
}

/** The ids of `<list><item id/></list>`, which WhatsApp uses to acknowledge several messages at once. */
function listedIds(content: unknown): string[] {
  if (!Array.isArray(content)) return []
  const list = content.find((child) => child?.tag === "list")
  if (!list || !Array.isArray(list.content)) return []
  return list.content.filter((item: { tag?: string }) => item?.tag === "item").map((item: { attrs?: { id?: string } }) => item.attrs?.id ?? "")
}
