import type { Scheduler } from "../lib/scheduler"
import { findMessages } from "../store/messages"
import {
  takeSandboxTransitions,
  insertSandboxTransition,
  listSandboxTransitions,
  type SandboxTransitionRow,
} from "../store/sandbox-transitions"
import type { Database } from "bun:sqlite"
import type { WriteTx } from "../store/writer"
import type { DomainContext } from "./context"
import type { MessageErrorCode, ReceiptKind } from "../lib/vocabulary"
import { bornFailed, bornSent, type Transition } from "./message-status"
import { applyMessageSignals } from "./message-events"

/** A group every sandbox phone can post to. */
export interface SandboxGroup {
  id: string
  name: string
  isCommunityAnnounce: boolean
}

/** The groups `GET /v1/groups` lists for any phone with a test key (docs/decisions.md § "Sandbox"). */
export const SANDBOX_GROUPS: readonly SandboxGroup[] = [
  { id: "120363000000000001@g.us", name: "Sandbox Team", isCommunityAnnounce: false },
  { id: "120363000000000002@g.us", name: "Sandbox Announcements", isCommunityAnnounce: true },
]

type Outcome =
  | { kind: "failed"; errorCode: MessageErrorCode; errorMessage: (to: string, from: string) => string }
  | { kind: "progress"; steps: ReceiptKind[] }

/** The magic recipients (NANP fictional range) and what each simulates. */
export const SANDBOX_RECIPIENTS: Readonly<Record<string, Outcome>> = {
  "+12025550101": {
    kind: "failed",
    errorCode: "recipient_not_on_whatsapp",
    errorMessage: (to) => `${to} is not on WhatsApp`,
  },
  "+12025550102": { kind: "progress", steps: ["delivered"] },
  "+12025550103": { kind: "progress", steps: ["read"] },
  "+12025550104": { kind: "progress", steps: [] },
  "+12025550105": {
    kind: "failed",
    errorCode: "account_restricted",
    errorMessage: () => "WhatsApp restricted this phone from messaging new contacts (error 463)",
  },
}

const DEFAULT_OUTCOME: Outcome = { kind: "progress", steps: ["delivered", "read"] }

/** What a sandbox send becomes: its birth state and the transitions promised for later. */
export interface SandboxPlan {
  birth: Transition
  transitions: { status: ReceiptKind; dueAtMs: number }[]
}

/** Decides a sandbox send's fate from its recipient alone (pure). */
export function planSandboxSend(
  to: string,
  isGroup: boolean,
  from: string,
  nowMs: number,
  delays: { deliveredMs: number; readMs: number },
): SandboxPlan {
  let outcome: Outcome
  if (isGroup) {
    outcome = SANDBOX_GROUPS.some((g) => g.id === to)
      ? DEFAULT_OUTCOME
      : { kind: "failed", errorCode: "group_not_allowed", errorMessage: (t, f) => `Phone ${f} cannot post to group ${t}` }
  } else {
    outcome = SANDBOX_RECIPIENTS[to] ?? DEFAULT_OUTCOME
  }
  if (outcome.kind === "failed") {
    return { birth: bornFailed(nowMs, outcome.errorCode, outcome.errorMessage(to, from)), transitions: [] }
  }
  return {
    birth: bornSent(nowMs),
    transitions: outcome.steps.map((status) => ({
      status,
      dueAtMs: nowMs + (status === "delivered" ? delays.deliveredMs : delays.readMs),
    })),
  }
}

const SCHEDULER_KIND = "sandbox"
/** When a tick's transitions could not be written (the database busy, say), they are tried again this much later. */
export const SANDBOX_RETRY_MS = 5_000

/**
 * Applies the sandbox's promised transitions when they fall due. They are rows in SQLite first
 * and timers second, so a restart loses none: `start` loads them all again.
 */
export interface SandboxScheduler {
  /** Loads every stored transition; overdue ones apply at the next tick. */
  start(): void
  /** Stores a plan's transitions in the message's transaction; they are scheduled once it commits. */
  record(db: Database, tx: WriteTx, messageId: string, plan: SandboxPlan): void
}

export function createSandboxScheduler(ctx: DomainContext, scheduler: Scheduler): SandboxScheduler {
  const keyOf = (row: SandboxTransitionRow) => `${row.messageId}:${row.status}`
  scheduler.on(SCHEDULER_KIND, (keys) => {
    const due = keys.map((key) => {
      const [messageId, status] = key.split(":") as [string, ReceiptKind]
      return { messageId, status }
    })
    ctx.writer
      .write((db, tx) => applySandboxTransitions(ctx, db, tx, due))
      .catch((err) => {
        // The rows are still stored (the write rolled back); only their timers need re-arming.
        ctx.logger.error("applying sandbox transitions failed", { err, retryInMs: SANDBOX_RETRY_MS })
        const retryAtMs = ctx.clock.nowMs() + SANDBOX_RETRY_MS
        for (const key of keys) scheduler.schedule(SCHEDULER_KIND, key, retryAtMs)
      })
  })
  return {
    start() {
      for (const row of listSandboxTransitions(ctx.db)) scheduler.schedule(SCHEDULER_KIND, keyOf(row), row.dueAtMs)
    },
    record(db, tx, messageId, plan) {
      for (const t of plan.transitions) {
        const row = { messageId, status: t.status, dueAtMs: t.dueAtMs }
        insertSandboxTransition(db, row)
        tx.afterCommit(() => scheduler.schedule(SCHEDULER_KIND, keyOf(row), row.dueAtMs))
      }
    },
  }
}

/**
 * Applies due transitions through the status machine, with their events, and forgets them. A
 * tick's transitions go together: taken, read and written a few statements for the lot rather
 * than several per message (they are half of what a sandbox send costs).
 */
function applySandboxTransitions(ctx: DomainContext, db: Database, tx: WriteTx, due: readonly { messageId: string; status: ReceiptKind }[]): void {
  // A read also takes its message's delivered if that is still stored (its write failed and
  // waits for a retry), so delivered always comes first. Those already applied are not returned.
  const wanted = [...due, ...due.filter((t) => t.status === "read").map((t) => ({ messageId: t.messageId, status: "delivered" as const }))]
  const taken = takeSandboxTransitions(db, wanted).sort((a, b) => a.dueAtMs - b.dueAtMs || STEP_ORDER[a.status] - STEP_ORDER[b.status])
  if (taken.length === 0) return
  const messages = new Map(findMessages(db, [...new Set(taken.map((t) => t.messageId))]).map((m) => [m.id, m]))
  applyMessageSignals(
    ctx,
    db,
    tx,
    messages,
    taken.map((t) => ({ messageId: t.messageId, signal: { kind: t.status, atMs: t.dueAtMs } })),
  )
}

const STEP_ORDER = { delivered: 0, read: 1 } as const
