import { TimerWheel } from "../lib/timer-wheel"
import { findMessage, updateMessageStatus } from "../store/messages"
import {
  deleteSandboxTransition,
  insertSandboxTransition,
  listSandboxTransitions,
  type SandboxTransitionRow,
} from "../store/sandbox-transitions"
import type { Database } from "bun:sqlite"
import type { DomainContext } from "./context"
import { applySignal, bornFailed, bornSent, type ErrorCode, type Transition } from "./message-status"

/** A group every sandbox phone can post to. */
export interface SandboxGroup {
  id: string
  name: string
  isCommunityAnnounce: boolean
}

/** The groups `GET /v1/groups` lists for any phone with a test key (API-DECISIONS §7). */
export const SANDBOX_GROUPS: readonly SandboxGroup[] = [
  { id: "120363000000000001@g.us", name: "Sandbox Team", isCommunityAnnounce: false },
  { id: "120363000000000002@g.us", name: "Sandbox Announcements", isCommunityAnnounce: true },
]

type Outcome =
  | { kind: "failed"; errorCode: ErrorCode; errorMessage: (to: string, from: string) => string }
  | { kind: "progress"; steps: ("delivered" | "read")[] }

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
  transitions: { status: "delivered" | "read"; dueAtMs: number }[]
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

/** Stores a plan's promised transitions; call inside the transaction that inserts the message. */
export function recordSandboxTransitions(db: Database, messageId: string, plan: SandboxPlan): SandboxTransitionRow[] {
  const rows = plan.transitions.map((t) => ({ messageId, status: t.status, dueAtMs: t.dueAtMs }))
  for (const row of rows) insertSandboxTransition(db, row)
  return rows
}

/** Applies the sandbox's promised transitions when they fall due, across restarts. */
export interface SandboxScheduler {
  /** Loads every stored transition; overdue ones apply at once. */
  start(): void
  /** Schedules transitions that were just committed. */
  add(rows: readonly SandboxTransitionRow[]): void
  stop(): void
}

export function createSandboxScheduler(ctx: DomainContext): SandboxScheduler {
  const wheel = new TimerWheel<SandboxTransitionRow>(ctx.clock, (due) => {
    ctx.writer.write((db) => {
      for (const row of due) applySandboxTransition(ctx, db, row)
    }).catch((err) => ctx.logger.error("sandbox transition failed", { err }))
  })
  const add = (rows: readonly SandboxTransitionRow[]) => {
    for (const row of rows) wheel.schedule(`${row.messageId}:${row.status}`, row.dueAtMs, row)
  }
  return {
    start: () => add(listSandboxTransitions(ctx.db)),
    add,
    stop: () => wheel.stop(),
  }
}

/** Applies one due transition through the status machine and forgets it. */
function applySandboxTransition(ctx: DomainContext, db: Database, row: SandboxTransitionRow): void {
  // A transition another process already applied (or a message that is gone) is skipped.
  if (!deleteSandboxTransition(db, row.messageId, row.status)) return
  const message = findMessage(db, row.messageId)
  if (!message) return
  const { state } = applySignal(message, { kind: row.status, atMs: row.dueAtMs })
  updateMessageStatus(db, message, state, ctx.clock.nowMs())
}
