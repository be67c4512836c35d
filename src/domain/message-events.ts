import type { StoreQueries } from "../store/store"
import type { MessageEventName } from "../lib/vocabulary"
import { type MessageRow } from "../store/messages"
import type { WriteTx } from "../store/store"
import type { OutboxEvent } from "../webhooks/outbox"
import type { DomainContext } from "./context"
import { buildMessageEventData } from "./message-event-data"
import { applySignal, type MessageState, type StatusSignal } from "./message-status"

/** When the step an event announces happened. */
function occurredAtMs(state: MessageState, event: MessageEventName, fallbackMs: number): number {
  const at = { "message.sent": state.sentAtMs, "message.delivered": state.deliveredAtMs, "message.read": state.readAtMs, "message.failed": state.failedAtMs }[event]
  return at ?? fallbackMs
}

/** Records message events in the outbox, inside the caller's transaction. */
export async function recordMessageEvents(
  ctx: DomainContext,
  q: StoreQueries,
  tx: WriteTx,
  message: MessageRow,
  state: MessageState,
  events: readonly MessageEventName[],
): Promise<void> {
  await ctx.events.recordMany(q, tx, outboxEvents(ctx, message, state, events))
}

/** The outbox entries of one message's events, in order. */
function outboxEvents(ctx: DomainContext, message: MessageRow, state: MessageState, events: readonly MessageEventName[]): OutboxEvent[] {
  return events.map((event) => {
    // The data and the time are built when the outbox first reads them, which it does only for
    // an event some endpoint subscribes to: most sandbox events have none, and their ISO
    // timestamps were most of the cost of recording them (docs/performance.md § "Start-up and
    // sends, 2026-11-23 (evening)"). Each is built once, so every read sees the same value.
    let data: Record<string, unknown> | undefined
    let atMs: number | undefined
    return {
      accountId: message.accountId,
      env: message.env,
      type: event,
      get data() {
        return (data ??= buildMessageEventData(message, state, event))
      },
      get occurredAtMs() {
        return (atMs ??= occurredAtMs(state, event, ctx.clock.nowMs()))
      },
    }
  })
}

/**
 * Applies a status signal to a stored message: the status machine decides, the row and its
 * counters change, and every resulting event joins the outbox, all in one transaction.
 */
export async function applyMessageSignal(
  ctx: DomainContext,
  q: StoreQueries,
  tx: WriteTx,
  message: MessageRow,
  signal: StatusSignal,
): Promise<MessageRow> {
  const messages = new Map([[message.id, message]])
  await applyMessageSignals(ctx, q, tx, messages, [{ messageId: message.id, signal }])
  return messages.get(message.id)!
}

/**
 * Applies many signals in order (several may concern one message) to the messages in
 * `messages`, which are updated in place; a signal for a message not in the map is skipped.
 * Each message is written once, with its last state, and the counters move by their net
 * change: the same rows and events as applying the signals one by one, for less work.
 */
export async function applyMessageSignals(
  ctx: DomainContext,
  q: StoreQueries,
  tx: WriteTx,
  messages: Map<string, MessageRow>,
  signals: readonly { messageId: string; signal: StatusSignal }[],
): Promise<void> {
  const before = new Map<string, MessageRow>()
  const steps: { messageId: string; state: MessageState; events: readonly MessageEventName[] }[] = []
  for (const { messageId, signal } of signals) {
    const current = messages.get(messageId)
    if (!current) continue
    const { state, events } = applySignal(current, signal)
    if (!before.has(messageId)) before.set(messageId, current)
    messages.set(messageId, { ...current, ...state })
    steps.push({ messageId, state, events })
  }
  const changes = [...before].map(([id, row]) => ({ before: row, patch: messages.get(id)! }))
  for (const updated of await q.updateMessageStatuses(changes, ctx.clock.nowMs())) messages.set(updated.id, updated)
  // A sweep's events, all of them, go to the outbox as one set (multi-row statements).
  const outbox = steps.flatMap(({ messageId, state, events }) => outboxEvents(ctx, messages.get(messageId)!, state, events))
  if (outbox.length > 0) await ctx.events.recordMany(q, tx, outbox)
}
