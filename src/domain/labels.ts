import { errors } from "../lib/errors"
import type { PhoneRow } from "../store/phones"
import type { LabelRow } from "../store/labels"
import type { WhatsAppSession } from "../whatsapp/gateway"
import type { Principal } from "./api-keys"
import { applyChatChange } from "./chat-events"
import { requireChatId } from "./chats"
import { chatView } from "./chat-views"
import type { DomainContext } from "./context"
import type { PhoneLinks } from "./phone-links"
import { resolvePhone } from "./phones"
import { connectedSession, jidOfAddress } from "./wa-targets"

/*
 * Labels made and put on chats through the API (docs/api.md § "Labels"). Labels exist only on
 * WhatsApp Business phones: a live key's phone must run the WhatsApp Business app (its pairing
 * says so), else 409; the sandbox phone counts as one, so test keys exercise labels on what the
 * sandbox recorded. A live change is written to WhatsApp's app state first, so the phone shows it,
 * then to the store; `chat.updated` fires only when a chat's labels really changed.
 */

export interface CreateLabelCommand {
  fromPhoneId: string
  name: string
  color: number
}

export interface ChatLabelsCommand {
  fromPhoneId: string
  labels: string[]
}

/**
 * The id a new label takes: one past the highest the phone ever used, deleted ones included (the
 * phone still knows those), as the WhatsApp Business app numbers its own.
 */
export function nextLabelId(rows: readonly Pick<LabelRow, "labelId">[]): string {
  const used = rows.map((r) => Number.parseInt(r.labelId, 10)).filter((n) => Number.isSafeInteger(n))
  return String(Math.max(0, ...used) + 1)
}

/** The labels to put on and take off so a chat carries exactly `wanted`. */
export function labelDiff(current: readonly string[], wanted: readonly string[]): { add: string[]; remove: string[] } {
  return { add: wanted.filter((id) => !current.includes(id)), remove: current.filter((id) => !wanted.includes(id)) }
}

export function createLabels(deps: { ctx: DomainContext; links: PhoneLinks }) {
  const { ctx, links } = deps

  /** A live phone's connected session once it is known to be a WhatsApp Business account; 409 otherwise. */
  async function businessSession(phone: PhoneRow): Promise<WhatsAppSession> {
    const session = await connectedSession(ctx, links, phone.id)
    if (!(await session.isBusinessAccount())) throw errors.phoneNotBusiness(phone.phoneNumber)
    return session
  }

  /** Runs a write to WhatsApp's app state; 502 (logged once) when WhatsApp refuses it. */
  async function written(phone: PhoneRow, write: () => Promise<void>): Promise<void> {
    try {
      await write()
    } catch (err) {
      ctx.logger.warn("writing a label change to WhatsApp's app state failed; nothing was recorded", { phoneId: phone.id, err })
      throw errors.labelChangeUnwritten(err)
    }
  }

  return {
    async create(principal: Principal, cmd: CreateLabelCommand) {
      const phone = await resolvePhone(ctx, principal.accountId, cmd.fromPhoneId)
      const session = principal.env === "live" ? await businessSession(phone) : null
      const labelId = nextLabelId(await ctx.store.listLabels(phone.id, principal.env, { withDeleted: true }))
      const name = cmd.name.trim()
      if (session) await written(phone, () => session.writeLabel({ labelId, name, color: cmd.color }))
      const row: LabelRow = { phoneId: phone.id, env: principal.env, labelId, name, color: cmd.color, deleted: false, updatedAtMs: ctx.clock.nowMs() }
      await ctx.store.write(async (q) => await q.upsertLabel(row))
      return { id: labelId, name, color: cmd.color }
    },

    async setChatLabels(principal: Principal, chatId: string, cmd: ChatLabelsCommand) {
      requireChatId(chatId)
      const phone = await resolvePhone(ctx, principal.accountId, cmd.fromPhoneId)
      const chat = await ctx.store.findChat(phone.id, principal.env, chatId)
      if (!chat) throw errors.chatNotFound(chatId)
      const session = principal.env === "live" ? await businessSession(phone) : null
      const known = new Set((await ctx.store.listLabels(phone.id, principal.env)).map((r) => r.labelId))
      const unknown = cmd.labels.filter((id) => !known.has(id))
      if (unknown.length > 0) throw errors.labelsUnknown(unknown)
      const { add, remove } = labelDiff(chat.labels, cmd.labels)
      if (session) {
        const jid = jidOfAddress(chatId)
        await written(phone, async () => {
          for (const id of add) await session.labelChat(jid, id, true)
          for (const id of remove) await session.labelChat(jid, id, false)
        })
      }
      const input = { accountId: principal.accountId, env: principal.env, phoneId: phone.id, chatId, atMs: ctx.clock.nowMs() }
      const row = await ctx.store.write(async (q, tx) => {
        // Compared again inside the write: the phone's own app-state echo of this change may have landed first.
        const now = (await q.findChat(phone.id, principal.env, chatId)) ?? chat
        const changed = labelDiff(now.labels, cmd.labels)
        if (changed.add.length === 0 && changed.remove.length === 0) return now
        return await applyChatChange(ctx, q, tx, { ...input, change: { labels: [...cmd.labels] } })
      })
      return chatView(row)
    },
  }
}

export type Labels = ReturnType<typeof createLabels>
