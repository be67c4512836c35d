import { AppError, errors } from "../lib/errors"
import { boundedOutsideText } from "../lib/outside-text"
import type { ChatMessageRow } from "../store/chats"
import { MediaGoneError, MediaTooLargeError } from "../whatsapp/gateway"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { fallbackFileName, inboundMediaFile, type InboundMediaDeps, type InboundMediaFile } from "./inbound-media"
import { resolvePhone } from "./phones"
import { connectedSession } from "./wa-targets"

/*
 * The bytes of a timeline entry's attachment (`GET /v1/chats/{chatId}/messages/{messageId}/media`,
 * docs/api.md § "Chats and contacts"): a photo or document the phone sent itself (`origin:
 * "phone"`) or that history sync brought is downloaded from WhatsApp like an inbound one, into the
 * same cache; a received message's (`inmsg_…`) is the inbound media route's. WhatsApp's re-upload
 * request asks the sender's phone; for the phone's own messages there is no other sender to ask,
 * so media WhatsApp no longer has is `410` at once.
 */

export interface ChatMediaCommand {
  fromPhoneId: string
  chatId: string
  messageId: string
}

/** The message of the chat, if it belongs to the key's account, environment, phone and this chat (either of its ids). */
async function chatMessageOf(ctx: DomainContext, principal: Principal, cmd: ChatMediaCommand): Promise<ChatMessageRow> {
  const phone = await resolvePhone(ctx, principal.accountId, cmd.fromPhoneId)
  const chat = await ctx.store.findChat(phone.id, principal.env, cmd.chatId)
  if (!chat) throw errors.chatNotFound(cmd.chatId)
  const row = await ctx.store.findChatMessage(cmd.messageId)
  const mine = row !== null && row.media !== null && row.accountId === principal.accountId && row.env === principal.env && row.phoneId === phone.id
  // The row keeps the id it arrived with; its chat is the same when both resolve to one (a LID and its number).
  if (!mine || (await ctx.store.findChat(phone.id, principal.env, row.chatId))?.chatId !== chat.chatId) throw errors.chatMessageNotFound(cmd.chatId, cmd.messageId)
  return row
}

export async function chatMediaFile(ctx: DomainContext, deps: InboundMediaDeps, principal: Principal, cmd: ChatMediaCommand): Promise<InboundMediaFile> {
  if (cmd.messageId.startsWith("inmsg_")) return inboundMediaFile(ctx, deps, principal, cmd.messageId)
  const row = await chatMessageOf(ctx, principal, cmd)
  const media = row.media!
  const describe = (file: { sizeBytes: number; path: string }): InboundMediaFile => ({
    path: file.path,
    sizeBytes: file.sizeBytes,
    mimetype: media.mimetype,
    fileName: media.fileName ?? fallbackFileName(row.id, media.mimetype),
  })
  const cached = deps.cache.get(row.id)
  if (cached) return describe(cached)
  const maxBytes = deps.maxBytes[media.capKind]
  if (media.sizeBytes > maxBytes) throw errors.inboundMediaTooLarge(row.id, maxBytes)
  return describe(await deps.cache.fill(row.id, (path) => download(ctx, deps, row, path, maxBytes)))
}

async function download(ctx: DomainContext, deps: InboundMediaDeps, row: ChatMessageRow, path: string, maxBytes: number): Promise<number> {
  const session = await connectedSession(ctx, deps.links, row.phoneId)
  try {
    return await session.downloadMedia(row.media!.descriptor, path, maxBytes)
  } catch (err) {
    if (err instanceof MediaGoneError) throw errors.chatMessageMediaGone(row.id)
    if (err instanceof MediaTooLargeError) throw errors.inboundMediaTooLarge(row.id, maxBytes)
    if (err instanceof AppError) throw err
    ctx.logger.warn("downloading a chat message's media file from WhatsApp failed", { messageId: row.id, reason: boundedOutsideText(err instanceof Error ? err.message : String(err)) })
    throw errors.whatsappUnanswered("Downloading the media from WhatsApp failed; retry after a moment", err)
  }
}
