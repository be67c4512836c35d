import type { MessageErrorCode, MessageEventName, MessageStatus } from "../lib/vocabulary"

/** The lifecycle fields of a message that the status machine owns. */
export interface MessageState {
  status: MessageStatus
  sentAtMs: number | null
  deliveredAtMs: number | null
  readAtMs: number | null
  failedAtMs: number | null
  errorCode: string | null
  errorMessage: string | null
}

/** What happened to a message, as reported by WhatsApp (or the sandbox). */
export type StatusSignal =
  | { kind: "sent"; atMs: number }
  | { kind: "delivered"; atMs: number }
  | { kind: "read"; atMs: number }
  | { kind: "failed"; atMs: number; errorCode: MessageErrorCode; errorMessage: string }


/** The outcome of applying a signal: the new state and the events it emits, in order. */
export interface Transition {
  state: MessageState
  events: MessageEventName[]
}

const EMPTY: Omit<MessageState, "status"> = {
  sentAtMs: null,
  deliveredAtMs: null,
  readAtMs: null,
  failedAtMs: null,
  errorCode: null,
  errorMessage: null,
}

/** A live send starts `pending`; nothing is emitted until WhatsApp acknowledges it. */
export function bornPending(): Transition {
  return { state: { status: "pending", ...EMPTY }, events: [] }
}

/** A sandbox send is born `sent` and emits `message.sent`. */
export function bornSent(atMs: number): Transition {
  return { state: { status: "sent", ...EMPTY, sentAtMs: atMs }, events: ["message.sent"] }
}

/** A send that can never go out (a group the phone cannot post to, a sandbox failure number). */
export function bornFailed(atMs: number, errorCode: MessageErrorCode, errorMessage: string): Transition {
  return { state: { status: "failed", ...EMPTY, failedAtMs: atMs, errorCode, errorMessage }, events: ["message.failed"] }
}

/**
 * The status machine of docs/decisions.md § "Outbound messages": pending → sent → delivered → read, sent → read,
 * pending → failed. Updates are monotonic: nothing moves backwards or out of `failed`; a late
 * signal for a step already passed only fills its missing timestamp, silently. A receipt that
 * arrives before the server ack implies the ack, so it emits `message.sent` first. Every
 * transition emits exactly one event.
 */
export function applySignal(current: MessageState, signal: StatusSignal): Transition {
  const unchanged: Transition = { state: current, events: [] }
  if (current.status === "failed") return unchanged

  if (signal.kind === "failed") {
    if (current.status !== "pending") return unchanged
    return {
      state: {
        ...current,
        status: "failed",
        failedAtMs: signal.atMs,
        errorCode: signal.errorCode,
        errorMessage: signal.errorMessage,
      },
      events: ["message.failed"],
    }
  }

  const state = { ...current }
  const events: MessageEventName[] = []
  if (state.status === "pending") {
    state.status = "sent"
    state.sentAtMs = signal.atMs
    events.push("message.sent")
  } else if (state.sentAtMs === null) {
    state.sentAtMs = signal.atMs
  }
  if (signal.kind === "sent") return { state, events }

  if (signal.kind === "delivered") {
    if (state.status === "sent") {
      state.status = "delivered"
      state.deliveredAtMs = signal.atMs
      events.push("message.delivered")
    } else if (state.deliveredAtMs === null) {
      // A delivery receipt after the read receipt: record when, never move back.
      state.deliveredAtMs = signal.atMs
    }
    return { state, events }
  }

  if (state.status !== "read") {
    state.status = "read"
    state.readAtMs = signal.atMs
    events.push("message.read")
  }
  return { state, events }
}
