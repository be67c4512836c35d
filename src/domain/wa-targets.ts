import type { StoreQueries } from "../store/store"
import { errors, type AppError } from "../lib/errors"
import type { PhoneRow } from "../store/phones"
import { isGroupJid, isLidJid } from "../lib/formats"
import type { InboundRow } from "../store/inbound"
import type { MessageRow } from "../store/messages"
import type { WaMessageRef, WhatsAppSession } from "../whatsapp/gateway"
import type { DomainContext } from "./context"
import type { LiveLookups } from "./live-lookups"
import type { PhoneLinks } from "./phone-links"

/*
 * How wagate names one of its messages to WhatsApp when it acts on it (docs/api.md § "Act on a
 * message"). An outbound message is one WhatsApp message per part (live-sender.ts): its text or
 * caption rides on one of them, which is the one reactions and edits point at; a revoke deletes
 * every part. An inbound message is named by its chat and, in a group, its author.
 */

/** What acting on live messages needs: the connected sessions and the number cache. */
export interface LiveActionDeps {
  links: PhoneLinks
  lookups: LiveLookups
}

/** Media kinds WhatsApp shows a caption under (the same rule as outbound-parts.ts). */
const CAPTIONABLE: ReadonlySet<string> = new Set(["image", "video", "document"])

/** The connected session of a message's phone, or the error `noSessionError` says. */
export async function connectedSession(ctx: DomainContext, links: PhoneLinks, phoneId: string): Promise<WhatsAppSession> {
  const phone = await ctx.store.findPhone(phoneId)
  const session = phone?.connectionStatus === "connected" ? links.sessionOf(phoneId) : null
  if (!phone || session === null) throw await noSessionError(ctx, phone, phoneId)
  return session
}

/** The node whose unexpired lease holds the phone, or null (one node, or nobody holds it). */
export async function leaseHolder(ctx: DomainContext, phoneId: string): Promise<string | null> {
  const nowMs = ctx.clock.nowMs()
  return (await ctx.store.listPhoneLeases()).find((l) => l.phoneId === phoneId && l.nodeId !== null && l.expiresAtMs > nowMs)?.nodeId ?? null
}

/**
 * The error for a request that needs the phone's socket when this process has none: 400 not
 * connected, or, with several nodes, 409 naming the node the phone is connected through
 * (docs/operations.md § "Running several nodes").
 */
export async function noSessionError(ctx: DomainContext, phone: PhoneRow | null, phoneId: string): Promise<AppError> {
  if (phone?.connectionStatus === "connected") {
    const holder = await leaseHolder(ctx, phoneId)
    if (holder !== null && holder !== ctx.config.nodeId) return errors.phoneOnOtherNode(phone.phoneNumber, holder)
  }
  return errors.phoneNotConnected(phone?.phoneNumber ?? phoneId, phone?.connectionStatus ?? "unknown")
}

/** A JID for an address as wagate stores it: E.164 becomes `<digits>@s.whatsapp.net`, a JID stays. */
export function jidOfAddress(address: string): string {
  return address.includes("@") ? address : `${address.replace(/^\+/, "")}@s.whatsapp.net`
}

/**
 * The chat a live outbound message went to: a group or a hidden number's JID as it is, a number
 * through the same cache the send used (WhatsApp may name another JID than its digits). 502 when
 * WhatsApp does not answer the check.
 */
export async function outboundChatJid(lookups: LiveLookups, session: WhatsAppSession, message: MessageRow): Promise<string> {
  if (isGroupJid(message.toAddress) || isLidJid(message.toAddress)) return message.toAddress
  try {
    return (await lookups.recipientJid(message.phoneId, session, message.toAddress)) ?? jidOfAddress(message.toAddress)
  } catch (err) {
    throw errors.whatsappUnanswered("Checking the number with WhatsApp failed; retry after a moment", err)
  }
}

/** The WhatsApp messages of an outbound message: every part handed over, and the one holding its text. */
export async function outboundRefs(q: StoreQueries, message: MessageRow, chatJid: string): Promise<{ all: WaMessageRef[]; text: WaMessageRef | null }> {
  const parts = (await q.listParts(message.id)).filter((part) => part.status !== "failed")
  const ref = (waMessageId: string): WaMessageRef => ({ chatJid, waMessageId, fromMe: true })
  const textPart =
    parts.find((part) => part.mediaUrl === null) ??
    (message.content.trim() === "" ? undefined : parts.find((part) => part.mediaUrl !== null && CAPTIONABLE.has(part.mediaKind ?? "")))
  return { all: parts.map((part) => ref(part.waMessageId)), text: textPart ? ref(textPart.waMessageId) : null }
}

/** The WhatsApp message of an inbound row. */
export function inboundRef(row: InboundRow): WaMessageRef {
  if (row.isGroup && row.groupId !== null) {
    return { chatJid: row.groupId, waMessageId: row.waMessageId, fromMe: false, authorJid: jidOfAddress(row.fromAddress) }
  }
  return { chatJid: jidOfAddress(row.fromAddress), waMessageId: row.waMessageId, fromMe: false }
}

/**
 * Where the node holding a phone takes forwarded requests: the URL it registered itself
 * (WAGATE_NODE_URL), or null when it set none (docs/operations.md § "Running several nodes").
 * Only an address a node wrote into the shared database is ever returned, never one from a request.
 */
export async function holderUrl(ctx: DomainContext, nodeId: string): Promise<string | null> {
  return ctx.store.nodeUrl(nodeId)
}
