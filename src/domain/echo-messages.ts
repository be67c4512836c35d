import { Type } from "@sinclair/typebox"
import { named, Timestamp } from "../lib/schema"
import { toIso } from "../lib/time"
import type { EchoMessage, InboundDetails } from "../whatsapp/gateway"
import type { ChatMessageRow } from "../store/chats"
import type { DomainContext } from "./context"
import { messageIdForWaId } from "./inbound-actions"
import { InboundTypeSchema } from "./schemas"

/*
 * Messages the phone (or another linked device of the account) sent itself (docs/api.md § "Chats
 * and contacts", docs/webhooks.md § "Chat events"): recorded in the chat's timeline with
 * `origin: "phone"`, never in `GET /v1/messages` (the API's own sends), and told as
 * `message.echo`. A WhatsApp id the phone already holds (an API send's part, an inbound message,
 * an echo delivered again after a reconnect) records nothing and emits nothing.
 */

export const MessageEchoData = named(
  "MessageEchoEventData",
  Type.Object(
    {
      phoneId: Type.String({ examples: ["ph_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
      chatId: Type.String({ description: "E.164, a `…@lid` JID or a group JID.", examples: ["+14155550199"] }),
      id: Type.String({ description: "The message's id in the chat timeline (`wamsg_…`).", examples: ["wamsg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
      type: InboundTypeSchema,
      content: Type.String({ description: "The text, or the caption of a media message." }),
      at: Timestamp,
    },
    { description: "The phone itself (or another linked device of the account) sent a message; not one sent through wagate." },
  ),
)

/** The catalogue's entry (event-catalogue.ts spreads it in). */
export const ECHO_EVENT_ENTRIES = {
  "message.echo": { data: MessageEchoData, firesWhen: "A live phone (or another device linked to its account) sent a message itself, not through wagate." },
} as const

/** Records an echo and its `message.echo` in one transaction; null when the phone already holds the WhatsApp id. */
export async function recordEcho(ctx: DomainContext, phoneId: string, echo: EchoMessage): Promise<ChatMessageRow | null> {
  return ctx.store.write(async (q, tx) => {
    const phone = await q.findPhone(phoneId)
    if (!phone) return null
    const details = echo.details ?? {}
    const quoted = details.quotedWaMessageId
    const row = await q.recordEchoMessage({
      id: ctx.ids.newId("wamsg"),
      accountId: phone.accountId,
      env: "live",
      phoneId,
      waMessageId: echo.waMessageId,
      chatId: echo.chatId,
      origin: "phone",
      direction: "out",
      fromAddress: phone.phoneNumber,
      type: echo.type,
      content: echo.content,
      ...timelineDetails(details),
      replyToId: quoted ? await messageIdForWaId(q, phoneId, quoted, null) : null,
      status: "sent",
      editedAtMs: null,
      revokedAtMs: null,
      atMs: echo.atMs,
      createdAtMs: ctx.clock.nowMs(),
    })
    if (!row) return null
    const data = { phoneId, chatId: row.chatId, id: row.id, type: row.type, content: row.content, at: toIso(row.atMs) }
    await ctx.events.record(q, tx, { accountId: row.accountId, env: row.env, type: "message.echo", data, occurredAtMs: row.createdAtMs })
    return row
  })
}

/** What a timeline row keeps of a message's richer fields, for the phone's own messages and history alike. */
export function timelineDetails(details: InboundDetails): Pick<ChatMessageRow, "media" | "location" | "contact" | "poll"> {
  const poll = details.poll
  return {
    media: details.media ?? null,
    location: details.location ?? null,
    contact: details.contact ?? null,
    poll: poll ? { question: poll.question, options: poll.options, multipleAnswers: poll.multipleAnswers } : null,
  }
}
