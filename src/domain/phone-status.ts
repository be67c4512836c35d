import type { ConnectionStatus } from "../lib/vocabulary"
import { LeaseLostError, type LeaseFence } from "../store/leases"
import type { ConnectionFailure } from "../whatsapp/failures"
import { logFailure, toLastError, type LastError } from "./connection-errors"
import type { DomainContext } from "./context"
import { buildPhoneEventData } from "./phone-events"

/** What a connection change writes besides the status. */
export interface StatusChange {
  reason?: string
  willReconnect?: boolean
  /** Replaces the phone's last error (null clears it); left as it is when absent. */
  lastError?: LastError | null
}

/**
 * Writes a phone's connection change in one transaction with its event: `phone.connected` when
 * entering `connected`, and `phone.disconnected` when leaving it or when the phone must be paired
 * again. A phone removed meanwhile is left alone. With a fence (several nodes), the write proves
 * in its transaction that this node still holds the phone's lease, like its key writes: a node
 * that was paused past its lease and wakes up to its old socket's close must not mark a phone
 * another node has connected as disconnected. Returns false when the fence refused the write.
 */
export async function writePhoneStatus(ctx: DomainContext, phoneId: string, status: ConnectionStatus, change: StatusChange = {}, fence: LeaseFence | null = null): Promise<boolean> {
  try {
    await writeStatusChecked(ctx, phoneId, status, change, fence)
    return true
  } catch (err) {
    if (err instanceof LeaseLostError) return false
    throw err
  }
}

async function writeStatusChecked(ctx: DomainContext, phoneId: string, status: ConnectionStatus, change: StatusChange, fence: LeaseFence | null): Promise<void> {
  await ctx.store.write(async (q, tx) => {
    const nowMs = ctx.clock.nowMs()
    if (fence) await q.assertLease(phoneId, fence.nodeId, fence.token, nowMs)
    const phone = await q.findPhone(phoneId)
    if (!phone) return
    const enteringConnected = status === "connected" && phone.connectionStatus !== "connected"
    const leavingConnected = phone.connectionStatus === "connected" && status !== "connected"
    const lostPairing = status === "logged_out" && phone.connectionStatus !== "logged_out" && phone.connectionStatus !== "unpaired"
    const next = {
      id: phone.id,
      connectionStatus: status,
      lastConnectedAtMs: enteringConnected ? nowMs : phone.lastConnectedAtMs,
      lastDisconnectedAtMs: leavingConnected || lostPairing ? nowMs : phone.lastDisconnectedAtMs,
      updatedAtMs: nowMs,
    }
    // Offline with no reconnect coming: the next start must not connect it either.
    await q.updatePhoneConnection(next, status === "disconnected" && change.willReconnect === false)
    if (change.lastError !== undefined) await q.updatePhoneLastError(phone.id, change.lastError)
    if (!enteringConnected && !leavingConnected && !lostPairing) return
    await ctx.events.record(q, tx, {
      accountId: phone.accountId,
      env: "live",
      type: enteringConnected ? "phone.connected" : "phone.disconnected",
      occurredAtMs: nowMs,
      data: buildPhoneEventData({ ...phone, ...next }, change),
    })
  })
}

/** Logs a failed attempt once and returns its last error (null when the adapter named no failure or the phone is gone). */
export async function recordFailure(ctx: DomainContext, phoneId: string, failure: ConnectionFailure | null, nextAttemptAtMs: number | null): Promise<LastError | null> {
  const phone = await ctx.store.findPhone(phoneId)
  if (!failure || !phone) return null
  const lastError = toLastError(failure, ctx.clock.nowMs())
  logFailure(ctx.logger, phone, failure, lastError, nextAttemptAtMs)
  return lastError
}

/**
 * Puts a phone back to the status it had before a pairing that was abandoned (`unpaired` or
 * `logged_out`). Nothing a receiver must hear about happened, so no event is written.
 */
export async function restorePhoneStatus(ctx: DomainContext, phoneId: string, status: "unpaired" | "logged_out"): Promise<void> {
  await ctx.store.write(async (q) => {
    const phone = await q.findPhone(phoneId)
    if (!phone || phone.connectionStatus !== "pairing") return
    const { lastConnectedAtMs, lastDisconnectedAtMs } = phone
    await q.updatePhoneConnection({ id: phone.id, connectionStatus: status, lastConnectedAtMs, lastDisconnectedAtMs, updatedAtMs: ctx.clock.nowMs() }, false)
  })
}
