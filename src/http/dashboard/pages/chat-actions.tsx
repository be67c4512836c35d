import { principalOfKey } from "../../../domain/api-keys"
import { markInboundRead } from "../../../domain/inbound-reads"
import { reactToMessage } from "../../../domain/message-actions"
import { sendMessage } from "../../../domain/messages"
import { errors } from "../../../lib/errors"
import { SendMessageBody } from "../../models/messages"
import type { DashboardApp } from "../base"
import { action, formFailure, validated, type Dashboard, type FormWords, type PageContext } from "../context"
import { redirect } from "../respond"
import { inboxHref } from "../views/chat-list"
import { errorPage } from "./errors"
import { inboxOf, inboxPage, type Inbox, type ReplyValues } from "./chats"

/*
 * What the inbox changes (docs/dashboard.md § "Chats"): a reply, a reaction, marking a chat read
 * and archiving it. Each is a CSRF-checked POST (`action`) through the same domain function as
 * its API route (POST /v1/messages/send, POST /v1/messages/{id}/react, POST
 * /v1/messages/inbound/{id}/read, PATCH /v1/chats/{chatId}), so sandbox and live phones follow the
 * API's rules; then the browser goes back to the open chat.
 */

const WORDS: FormWords = {
  content: { label: "Your message", sentences: [[/is required|must not be empty/, "Your message must not be empty"]] },
  replyTo: { label: "The quoted message" },
}

/** How many of the newest messages mark-read looks through for the newest received one. */
const READ_LOOKBACK = 50

type Act = (c: PageContext, inbox: Inbox, chatId: string) => Promise<void>

/** Runs one change on the chat named by the form, then shows the chat again (a refusal above its reply box). */
function chatAction(dash: Dashboard, act: Act) {
  return action(
    dash,
    async (c) => {
      const chatId = c.form.get("chatId")
      const inbox = await inboxOf(c, chatId)
      const values: ReplyValues = { keyId: c.form.get("keyId"), content: c.form.get("content"), replyTo: c.form.get("replyTo") }
      try {
        await act(c, inbox, chatId)
        return redirect(inboxHref(inbox.scope, inbox.state))
      } catch (err) {
        return formFailure(err, (failure) => inboxPage(c, { ...failure, values }), { words: WORDS, passOn: "not_found" })
      }
    },
    errorPage,
  )
}

/** A reply as the chosen key of this account and environment, with the rules of `POST /v1/messages/send`. */
const send: Act = async (c, inbox, chatId) => {
  const ctx = c.dash.deps.ctx
  const principal = await principalOfKey(ctx, c.form.get("keyId"))
  if (principal.accountId !== inbox.phone.accountId || principal.env !== inbox.scope.env) throw errors.validation([`Pick a ${inbox.scope.env} key of this account`])
  const replyTo = c.form.get("replyTo")
  const input = validated(SendMessageBody, { fromPhoneId: inbox.phone.id, to: chatId, content: c.form.get("content"), ...(replyTo ? { replyTo } : {}) })
  await sendMessage(ctx, { sandbox: c.dash.deps.sandbox, live: c.dash.deps.live }, principal, input)
  c.dash.deps.usage.recordKeyUse(principal)
}

const react: Act = async (c, inbox) => {
  await reactToMessage(c.dash.deps.ctx, c.dash.deps.messageActions, inbox.operator, c.form.get("messageId"), c.form.get("emoji"))
}

/** Read receipts up to the newest received message (as opening the chat on WhatsApp does), then the chat's unread mark cleared on the phone. */
const markRead: Act = async (c, inbox, chatId) => {
  const { chats, ctx } = { chats: c.dash.deps.chats, ctx: c.dash.deps.ctx }
  const { messages } = await chats.timeline(inbox.operator, chatId, { fromPhoneId: inbox.phone.id, limit: READ_LOOKBACK })
  const newestIn = messages.find((m) => m.id.startsWith("inmsg_"))
  if (newestIn) await markInboundRead(ctx, c.dash.deps.messageActions, inbox.operator, newestIn.id)
  await chats.update(inbox.operator, chatId, { fromPhoneId: inbox.phone.id, unread: false })
}

const archive: Act = async (c, inbox, chatId) => {
  await c.dash.deps.chats.update(inbox.operator, chatId, { fromPhoneId: inbox.phone.id, archived: c.form.get("archived") === "1" })
}

/** POST /dashboard/phones/{phoneId}/chats/{send,react,read,archive}. */
export const chatActionRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  app
    .post("/dashboard/phones/:phoneId/chats/send", chatAction(dash, send))
    .post("/dashboard/phones/:phoneId/chats/react", chatAction(dash, react))
    .post("/dashboard/phones/:phoneId/chats/read", chatAction(dash, markRead))
    .post("/dashboard/phones/:phoneId/chats/archive", chatAction(dash, archive))
