import { describe, expect, test } from "bun:test"
import {
  applySignal,
  bornFailed,
  bornPending,
  bornSent,
  type MessageState,
  type StatusSignal,
} from "../../src/domain/message-status"
import type { MessageEventName, MessageStatus } from "../../src/lib/vocabulary"

// Earlier timestamps carried by the starting states, and the instant every signal arrives at.
const SENT_AT = 1_000
const DELIVERED_AT = 2_000
const READ_AT = 3_000
const FAILED_AT = 1_500
const AT = 9_000

const NONE: Omit<MessageState, "status"> = {
  sentAtMs: null,
  deliveredAtMs: null,
  readAtMs: null,
  failedAtMs: null,
  errorCode: null,
  errorMessage: null,
}

function state(status: MessageStatus, fields: Partial<MessageState> = {}): MessageState {
  return { status, ...NONE, ...fields }
}

/**
 * Every state a message can be in. The "without" variants have a missing earlier timestamp
 * (rows written before a step was recorded, or a read that skipped delivered); the machine
 * must fill such gaps silently when a late signal brings the time.
 */
const STATES: Record<string, MessageState> = {
  pending: state("pending"),
  sent: state("sent", { sentAtMs: SENT_AT }),
  "sent without sentAt": state("sent"),
  delivered: state("delivered", { sentAtMs: SENT_AT, deliveredAtMs: DELIVERED_AT }),
  "delivered without sentAt": state("delivered", { deliveredAtMs: DELIVERED_AT }),
  "read after delivered": state("read", { sentAtMs: SENT_AT, deliveredAtMs: DELIVERED_AT, readAtMs: READ_AT }),
  "read with delivered skipped": state("read", { sentAtMs: SENT_AT, readAtMs: READ_AT }),
  "read without sentAt or deliveredAt": state("read", { readAtMs: READ_AT }),
  failed: state("failed", { failedAtMs: FAILED_AT, errorCode: "send_timeout", errorMessage: "no ack" }),
}

const SIGNALS: Record<StatusSignal["kind"], StatusSignal> = {
  sent: { kind: "sent", atMs: AT },
  delivered: { kind: "delivered", atMs: AT },
  read: { kind: "read", atMs: AT },
  failed: { kind: "failed", atMs: AT, errorCode: "whatsapp_rejected", errorMessage: "error 479" },
}

type Expected = { patch: Partial<MessageState>; events: MessageEventName[] }
const unchanged: Expected = { patch: {}, events: [] }

/**
 * The expected outcome of every (state, signal) pair, written out by hand from API-DECISIONS §7
 * rather than computed, so the table is an independent statement of the rules. `patch` lists
 * exactly the fields that change; every other field must keep its value.
 */
const TABLE: Record<string, Record<StatusSignal["kind"], Expected>> = {
  pending: {
    sent: { patch: { status: "sent", sentAtMs: AT }, events: ["message.sent"] },
    delivered: {
      patch: { status: "delivered", sentAtMs: AT, deliveredAtMs: AT },
      events: ["message.sent", "message.delivered"],
    },
    read: { patch: { status: "read", sentAtMs: AT, readAtMs: AT }, events: ["message.sent", "message.read"] },
    failed: {
      patch: { status: "failed", failedAtMs: AT, errorCode: "whatsapp_rejected", errorMessage: "error 479" },
      events: ["message.failed"],
    },
  },
  sent: {
    sent: unchanged,
    delivered: { patch: { status: "delivered", deliveredAtMs: AT }, events: ["message.delivered"] },
    read: { patch: { status: "read", readAtMs: AT }, events: ["message.read"] },
    failed: unchanged,
  },
  "sent without sentAt": {
    sent: { patch: { sentAtMs: AT }, events: [] },
    delivered: { patch: { status: "delivered", sentAtMs: AT, deliveredAtMs: AT }, events: ["message.delivered"] },
    read: { patch: { status: "read", sentAtMs: AT, readAtMs: AT }, events: ["message.read"] },
    failed: unchanged,
  },
  delivered: {
    sent: unchanged,
    delivered: unchanged,
    read: { patch: { status: "read", readAtMs: AT }, events: ["message.read"] },
    failed: unchanged,
  },
  "delivered without sentAt": {
    sent: { patch: { sentAtMs: AT }, events: [] },
    delivered: { patch: { sentAtMs: AT }, events: [] },
    read: { patch: { status: "read", sentAtMs: AT, readAtMs: AT }, events: ["message.read"] },
    failed: unchanged,
  },
  "read after delivered": {
    sent: unchanged,
    delivered: unchanged,
    read: unchanged,
    failed: unchanged,
  },
  "read with delivered skipped": {
    sent: unchanged,
    delivered: { patch: { deliveredAtMs: AT }, events: [] },
    read: unchanged,
    failed: unchanged,
  },
  "read without sentAt or deliveredAt": {
    sent: { patch: { sentAtMs: AT }, events: [] },
    delivered: { patch: { sentAtMs: AT, deliveredAtMs: AT }, events: [] },
    read: { patch: { sentAtMs: AT }, events: [] },
    failed: unchanged,
  },
  failed: {
    sent: unchanged,
    delivered: unchanged,
    read: unchanged,
    failed: unchanged,
  },
}

const CASES = Object.entries(TABLE).flatMap(([stateName, bySignal]) =>
  Object.entries(bySignal).map(([signalName, expected]) => ({
    name: `${stateName} + ${signalName}`,
    stateName,
    signal: SIGNALS[signalName as StatusSignal["kind"]],
    expected,
  })),
)

describe("applySignal: every state × every signal", () => {
  test("the table covers every state and every signal", () => {
    expect(Object.keys(TABLE).sort()).toEqual(Object.keys(STATES).sort())
    for (const bySignal of Object.values(TABLE)) expect(Object.keys(bySignal).sort()).toEqual(Object.keys(SIGNALS).sort())
  })

  test.each(CASES)("$name", ({ stateName, signal, expected }) => {
    const before = STATES[stateName]!
    const snapshot = structuredClone(before)
    const { state: after, events } = applySignal(before, signal)
    expect(after).toEqual({ ...before, ...expected.patch })
    expect(events).toEqual(expected.events)
    // The machine is pure: the caller's state object is never modified.
    expect(before).toEqual(snapshot)
  })
})

describe("applySignal: the named guarantees", () => {
  test("a late delivered after read only fills deliveredAt", () => {
    const { state: after, events } = applySignal(STATES["read with delivered skipped"]!, SIGNALS.delivered)
    expect(after.status).toBe("read")
    expect(after.deliveredAtMs).toBe(AT)
    expect(after.readAtMs).toBe(READ_AT)
    expect(events).toEqual([])
  })

  test("a late delivered after read keeps an existing deliveredAt", () => {
    const { state: after } = applySignal(STATES["read after delivered"]!, SIGNALS.delivered)
    expect(after.deliveredAtMs).toBe(DELIVERED_AT)
  })

  test.each(["sent", "delivered", "read"] as const)("failed is reached only from pending, never from %s", (status) => {
    const from = Object.values(STATES).find((s) => s.status === status)!
    const { state: after, events } = applySignal(from, SIGNALS.failed)
    expect(after.status).toBe(status)
    expect(after.errorCode).toBeNull()
    expect(events).toEqual([])
  })

  test.each(["delivered", "read"] as const)("a %s receipt on a pending message emits message.sent first", (kind) => {
    const { events } = applySignal(STATES.pending!, SIGNALS[kind])
    expect(events[0]).toBe("message.sent")
    expect(events).toHaveLength(2)
  })

  test("a read on a pending message skips delivered and leaves deliveredAt empty", () => {
    const { state: after } = applySignal(STATES.pending!, SIGNALS.read)
    expect(after.deliveredAtMs).toBeNull()
    expect(after.status).toBe("read")
  })
})

const RANK: Record<MessageStatus, number> = { pending: 0, sent: 1, failed: 1, delivered: 2, read: 3 }
const STATUS_EVENT: Record<Exclude<MessageStatus, "pending">, MessageEventName> = {
  sent: "message.sent",
  delivered: "message.delivered",
  read: "message.read",
  failed: "message.failed",
}

/** mulberry32: a tiny seeded PRNG, so a failing sequence is reproducible from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

describe("applySignal: random signal sequences", () => {
  test.each([1, 2, 3, 42, 2026])("seed %d: status never moves back and each event is emitted at most once", (seed) => {
    const random = prng(seed)
    const kinds = Object.keys(SIGNALS) as StatusSignal["kind"][]
    for (let run = 0; run < 200; run++) {
      let current = bornPending().state
      const emitted: MessageEventName[] = []
      for (let step = 0; step < 8; step++) {
        const kind = kinds[Math.floor(random() * kinds.length)]!
        const { state: next, events } = applySignal(current, { ...SIGNALS[kind], atMs: 10_000 + step })
        if (current.status === "failed") expect(next).toEqual(current)
        else expect(RANK[next.status]).toBeGreaterThanOrEqual(RANK[current.status])
        // An event is emitted exactly when the state moves, and the last one names the new status.
        if (next.status !== current.status) expect(events.at(-1)).toBe(STATUS_EVENT[next.status as keyof typeof STATUS_EVENT])
        else expect(events).toEqual([])
        // Timestamps once set never change.
        for (const field of ["sentAtMs", "deliveredAtMs", "readAtMs", "failedAtMs"] as const) {
          if (current[field] !== null) expect(next[field]).toBe(current[field])
        }
        emitted.push(...events)
        current = next
      }
      expect(new Set(emitted).size).toBe(emitted.length)
      expect(emitted.includes("message.failed") && emitted.length > 1).toBe(false)
    }
  })
})

describe("births", () => {
  test("bornPending starts pending with no timestamps and emits nothing", () => {
    expect(bornPending()).toEqual({ state: state("pending"), events: [] })
  })

  test("bornSent sets sentAt to the send time and emits message.sent", () => {
    expect(bornSent(AT)).toEqual({ state: state("sent", { sentAtMs: AT }), events: ["message.sent"] })
  })

  test("bornFailed records the time, code and message and emits message.failed", () => {
    expect(bornFailed(AT, "group_not_allowed", "cannot post")).toEqual({
      state: state("failed", { failedAtMs: AT, errorCode: "group_not_allowed", errorMessage: "cannot post" }),
      events: ["message.failed"],
    })
  })

  test("a message born failed stays failed whatever arrives later", () => {
    let current = bornFailed(AT, "recipient_not_on_whatsapp", "not on WhatsApp").state
    for (const signal of Object.values(SIGNALS)) {
      const t = applySignal(current, signal)
      expect(t.events).toEqual([])
      current = t.state
    }
    expect(current).toEqual(bornFailed(AT, "recipient_not_on_whatsapp", "not on WhatsApp").state)
  })

  test("a message born sent reaches read through delivered with one event per step", () => {
    const born = bornSent(AT)
    const delivered = applySignal(born.state, { kind: "delivered", atMs: AT + 1 })
    const read = applySignal(delivered.state, { kind: "read", atMs: AT + 2 })
    expect([...born.events, ...delivered.events, ...read.events]).toEqual(["message.sent", "message.delivered", "message.read"])
    expect(read.state).toEqual(state("read", { sentAtMs: AT, deliveredAtMs: AT + 1, readAtMs: AT + 2 }))
  })
})
