import { applySignal, bornSent, type StatusSignal, type Transition } from "../../../src/domain/message-status"
import type { Environment } from "../../../src/lib/vocabulary"
import type { InboundRow } from "../../../src/store/inbound"
import type { MessageRow, NewMessageRow } from "../../../src/store/messages"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import type { ContractStore } from "./stores"

/* Rows and steps the message contract tests share (test/store/contract/messages*.test.ts, inbound.test.ts). */

export const DAY_MS = 86_400_000

export interface MessageSeed {
  id?: string
  accountId?: string
  env?: Environment
  phoneId?: string
  birth?: Transition
  idempotencyKey?: string | null
  createdAtMs?: number
  toAddress?: string
  sandboxDeliveredDueMs?: number | null
  sandboxReadDueMs?: number | null
  replyTo?: string | null
  content?: string
}

let counter = 0

/** A new message row; ids sort in creation order, like the ULIDs the domain makes. */
export function newMessage(s: MessageSeed = {}): NewMessageRow {
  const now = s.createdAtMs ?? TEST_EPOCH_MS
  const birth = s.birth ?? bornSent(now)
  counter++
  return {
    id: s.id ?? `msg_${String(counter).padStart(8, "0")}`,
    accountId: s.accountId ?? "acc_a",
    env: s.env ?? "test",
    phoneId: s.phoneId ?? "ph_1",
    apiKeyId: "key_1",
    fromNumber: "+14155550100",
    toAddress: s.toAddress ?? "+14155550199",
    isGroup: false,
    content: s.content ?? "hello",
    mediaUrls: ["https://files.example.com/a.png"],
    ...birth.state,
    idempotencyKey: s.idempotencyKey ?? null,
    requestFingerprint: "fp",
    createdAtMs: now,
    updatedAtMs: now,
    sandboxDeliveredDueMs: s.sandboxDeliveredDueMs ?? null,
    sandboxReadDueMs: s.sandboxReadDueMs ?? null,
    replyTo: s.replyTo ?? null,
  }
}

/** Inserts one message in a write of its own, as the domain does. */
export function seedMessage(store: ContractStore, s: MessageSeed = {}): Promise<MessageRow> {
  const row = newMessage(s)
  return store.write((q) => q.insertMessage(row))
}

/** Applies a signal through the status machine and stores the result in one write, as the domain does. */
export function signal(store: ContractStore, id: string, sig: StatusSignal, nowMs: number): Promise<MessageRow> {
  return store.write(async (q) => {
    const before = (await q.findMessage(id))!
    const { state } = applySignal(before, sig)
    const patch = { ...state, sandboxDeliveredDueMs: before.sandboxDeliveredDueMs, sandboxReadDueMs: before.sandboxReadDueMs }
    return (await q.updateMessageStatuses([{ before, patch }], nowMs))[0]!
  })
}

export { prng } from "../../helpers/prng"

export const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!

/** An inbound message row (seq is the store's to give). */
export function newInbound(n: number, over: Partial<Omit<InboundRow, "seq">> = {}): Omit<InboundRow, "seq"> {
  return {
    id: `inmsg_${String(n).padStart(8, "0")}`,
    accountId: "acc_1",
    env: "live",
    phoneId: "ph_1",
    waMessageId: `WA${n}`,
    fromAddress: "+14155550166",
    fromUsername: null,
    toNumber: "+14155550123",
    content: `m${n}`,
    type: "text",
    isGroup: false,
    groupId: null,
    receivedAtMs: TEST_EPOCH_MS + n,
    createdAtMs: TEST_EPOCH_MS + n,
    replyToId: null,
    media: null,
    mediaGoneAtMs: null,
    location: null,
    contact: null,
    editedAtMs: null,
    revokedAtMs: null,
    ...over,
  }
}
