import type { Scheduler } from "../lib/scheduler"
import { type MessageRow } from "../store/messages"
import type { StoreQueries } from "../store/store"
import type { WriteTx } from "../store/store"
import type { DomainContext } from "./context"
import type { MessageErrorCode, ReceiptKind } from "../lib/vocabulary"
import { bornFailed, bornSent, type StatusSignal, type Transition } from "./message-status"
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

/**
 * What a sandbox send becomes: its birth state and when its promised transitions fall due
 * (null for a transition it will never make). The due times are stored on the message row.
 */
export interface SandboxPlan {
  birth: Transition
  deliveredDueMs: number | null
  readDueMs: number | null
}

/** Decides a sandbox send's fate from its recipient alone (pure). */
export function planSandboxSend(
  to: string,
  isGroup: boolean,
  from: string,
  nowMs: number,
  delays: { deliveredMs: number; readMs: number },
  memberOfStoredGroup = false,
): SandboxPlan {
  let outcome: Outcome
  if (isGroup) {
    // A seed group, or a sandbox group of the store the phone is in (group-sandbox.ts).
    outcome = memberOfStoredGroup || SANDBOX_GROUPS.some((g) => g.id === to)
      ? DEFAULT_OUTCOME
      : { kind: "failed", errorCode: "group_not_allowed", errorMessage: (t, f) => `Phone ${f} cannot post to group ${t}` }
  } else {
    outcome = SANDBOX_RECIPIENTS[to] ?? DEFAULT_OUTCOME
  }
  if (outcome.kind === "failed") {
    return { birth: bornFailed(nowMs, outcome.errorCode, outcome.errorMessage(to, from)), deliveredDueMs: null, readDueMs: null }
  }
  return {
    birth: bornSent(nowMs),
    deliveredDueMs: outcome.steps.includes("delivered") ? nowMs + delays.deliveredMs : null,
    readDueMs: outcome.steps.includes("read") ? nowMs + delays.readMs : null,
  }
}

const SCHEDULER_KIND = "sandbox"
/** The one job of that kind: the next sweep. Scheduling it again moves it. */
const SWEEP_KEY = "sweep"
/** When a sweep could not be written (the database busy, say), it is tried again at most this much later. */
export const SANDBOX_RETRY_MS = 5_000
/** Messages one sweep applies at most, so a backlog (after a long stop) goes in bounded transactions. */
export const SANDBOX_SWEEP_LIMIT = 2_000

/**
 * Applies the sandbox's promised transitions when they fall due. The due times live on the
 * message rows (written with the message, so a restart loses none: `start` looks for the
 * earliest); in memory there is only one timer, for the next sweep, and each sweep applies
 * everything due by then in one transaction.
 */
export interface SandboxScheduler {
  /** Arms the first sweep from the stored due times; overdue ones apply at the next tick. */
  start(): Promise<void>
  /** Makes sure a sweep runs by the plan's first due time (the plan's due times are on the message row). */
  record(plan: SandboxPlan): void
}

export function createSandboxScheduler(ctx: DomainContext, scheduler: Scheduler, sweepLimit = SANDBOX_SWEEP_LIMIT): SandboxScheduler {
  // When the armed sweep runs; null when none is armed. Due times only ever need an earlier
  // sweep, never a later one, so with fixed delays a send almost never touches the wheel.
  let armedAtMs: number | null = null
  const arm = (dueMs: number) => {
    if (armedAtMs !== null && armedAtMs <= dueMs) return
    armedAtMs = dueMs
    scheduler.schedule(SCHEDULER_KIND, SWEEP_KEY, dueMs)
  }
  scheduler.on(SCHEDULER_KIND, () => {
    armedAtMs = null
    const nowMs = ctx.clock.nowMs()
    ctx.store.write(async (q, tx) => {
        await applyDueSandboxTransitions(ctx, q, tx, nowMs, sweepLimit)
        // Armed inside the write, synchronously: the sweep for the next due time must exist
        // before the clock moves on (a backlog past the limit is due now: the next tick).
        const next = await q.nextSandboxDueMs()
        if (next !== null) arm(next)
      })
      .catch(async (err) => {
        // Nothing was applied (the write rolled back), so the due times are still stored; the
        // sweep is tried again later, or sooner if another transition falls due before then.
        ctx.logger.error("applying sandbox transitions failed", { err, retryInMs: SANDBOX_RETRY_MS })
        const retryAtMs = ctx.clock.nowMs() + SANDBOX_RETRY_MS
        arm(Math.min(retryAtMs, await soonerDueMs(ctx) ?? retryAtMs))
      })
  })
  return {
    async start() {
      const next = await ctx.store.nextSandboxDueMs()
      if (next !== null) arm(next)
    },
    record(plan) {
      // Armed before the message commits: a sweep that runs first finds nothing and re-arms from
      // what is stored, and one in the same group commit sees the uncommitted row.
      const first = plan.deliveredDueMs ?? plan.readDueMs
      if (first !== null) arm(first)
    },
  }
}

/** The next due time after now, or null when there is none or the database cannot be read (it may be closing). */
async function soonerDueMs(ctx: DomainContext): Promise<number | null> {
  try {
    return await ctx.store.nextSandboxDueAfterMs(ctx.clock.nowMs())
  } catch (err) {
    ctx.logger.debug("looking up the next sandbox due time failed", { err })
    return null
  }
}

/**
 * Applies every transition due by `nowMs` through the status machine, with their events, and
 * clears their due times in the same row write: one statement per message, the events in due
 * order across messages, delivered before read.
 */
async function applyDueSandboxTransitions(ctx: DomainContext, q: StoreQueries, tx: WriteTx, nowMs: number, limit: number): Promise<void> {
  const rows = await q.listSandboxDueMessages(nowMs, limit)
  if (rows.length === 0) return
  const messages = new Map<string, MessageRow>()
  const signals: { messageId: string; signal: StatusSignal; step: number }[] = []
  for (const row of rows) {
    const deliveredDue = row.sandboxDeliveredDueMs !== null && row.sandboxDeliveredDueMs <= nowMs
    const readDue = row.sandboxReadDueMs !== null && row.sandboxReadDueMs <= nowMs
    if (deliveredDue) signals.push({ messageId: row.id, signal: { kind: "delivered", atMs: row.sandboxDeliveredDueMs! }, step: 0 })
    if (readDue) signals.push({ messageId: row.id, signal: { kind: "read", atMs: row.sandboxReadDueMs! }, step: 1 })
    // The rows were just read for this sweep and nothing else holds them: cleared in place.
    if (deliveredDue) row.sandboxDeliveredDueMs = null
    if (readDue) row.sandboxReadDueMs = null
    messages.set(row.id, row)
  }
  signals.sort((a, b) => a.signal.atMs - b.signal.atMs || a.step - b.step)
  await applyMessageSignals(ctx, q, tx, messages, signals)
}
