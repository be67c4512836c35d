import type { Database } from "bun:sqlite"
import { toIsoOrNull } from "../lib/time"
import { updateMessageStatus, type MessageRow, type MessageStatus } from "../store/messages"
import type { WriteTx } from "../store/writer"
import type { DomainContext } from "./context"
import { applySignal, type MessageEventName, type MessageState, type StatusSignal } from "./message-status"

const STATUS_OF: Record<MessageEventName, MessageStatus> = {
  "message.sent": "sent",
  "message.delivered": "delivered",
  "message.read": "read",
  "message.failed": "failed",
}

/**
 * The spec's data of a message.* event, as the message stood at that event: when one signal
 * implies two steps (a receipt before the ack), `message.sent` still reports `sent`.
 */
export function messageEventData(message: MessageRow, state: MessageState, event: MessageEventName) {
  const status = STATUS_OF[event]
  const reached = (s: MessageStatus) => status === s || (s === "delivered" && status === "read")
  return {
    messageId: message.id,
    from: message.fromNumber,
    to: message.toAddress,
    isGroup: message.isGroup,
    groupId: message.isGroup ? message.toAddress : null,
    status,
    sentAt: toIsoOrNull(state.sentAtMs),
    deliveredAt: reached("delivered") ? toIsoOrNull(state.deliveredAtMs) : null,
    readAt: status === "read" ? toIsoOrNull(state.readAtMs) : null,
    failedAt: status === "failed" ? toIsoOrNull(state.failedAtMs) : null,
    errorCode: status === "failed" ? state.errorCode : null,
    errorMessage: status === "failed" ? state.errorMessage : null,
  }
}

/** When the step an event announces happened. */
function occurredAtMs(state: MessageState, event: MessageEventName, fallbackMs: number): number {
  const at = { "message.sent": state.sentAtMs, "message.delivered": state.deliveredAtMs, "message.read": state.readAtMs, "message.failed": state.failedAtMs }[event]
  return at ?? fallbackMs
}

/** Records message events in the outbox, inside the caller's transaction. */
export function recordMessageEvents(
  ctx: DomainContext,
  db: Database,
  tx: WriteTx,
  message: MessageRow,
  state: MessageState,
  events: readonly MessageEventName[],
): void {
  for (const event of events) {
    ctx.events.record(db, tx, {
      accountId: message.accountId,
      env: message.env,
      type: event,
      data: messageEventData(message, state, event),
      occurredAtMs: occurredAtMs(state, event, ctx.clock.nowMs()),
    })
  }
}

/**
 * Applies a status signal to a stored message: the status machine decides, the row and its
 * counters change, and every resulting event joins the outbox, all in one transaction.
 */
export function applyMessageSignal(
  ctx: DomainContext,
  db: Database,
  tx: WriteTx,
  message: MessageRow,
  signal: StatusSignal,
): MessageRow {
  const { state, events } = applySignal(message, signal)
  const updated = updateMessageStatus(db, message, state, ctx.clock.nowMs())
  recordMessageEvents(ctx, db, tx, updated, state, events)
  return updated
}
