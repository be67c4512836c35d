import type { LagSource } from "../lib/event-loop-lag"
import { inOrderPerKey } from "../lib/keyed-chain"
import type { Scheduler } from "../lib/scheduler"
import type { Release } from "../lib/semaphore"
import type { LeaseFence } from "../store/leases"
import type { ConnectionStatus, PairingMethod } from "../lib/vocabulary"
import type { WhatsAppGateway, WhatsAppSession } from "../whatsapp/gateway"
import { bootStaggerWindowMs, createConnectGate, DEFAULT_CONNECT_CONCURRENCY } from "./connect-gate"
import type { DomainContext } from "./context"
import type { LiveLookups } from "./live-lookups"
import type { MessageReceipts } from "./message-receipts"
import { PairingAttempts } from "./pairing-attempts"
import type { PhoneLinks } from "./phone-links"
import { writePhoneStatus, type StatusChange } from "./phone-status"
import { sessionEventsFor } from "./session-events"

/** Reconnect backoff bounds (docs/decisions.md § "Phones, groups, account and usage"). */
export const RECONNECT_MIN_MS = 1_000
export const RECONNECT_MAX_MS = 60_000
const RECONNECT_KIND = "reconnect"
const BOOT_CONNECT_KIND = "boot-connect"
/** A phone the previous process left `connected` is reconnecting at boot: its event says so. */
const BOOT_CHANGE: StatusChange = { reason: "server_restarted", willReconnect: true }

/** What the lifecycle keeps of one phone between events. */
export interface Runtime {
  session: WhatsAppSession | null
  /** The operator wants this phone online; false after disconnect/logout or a terminal close. */
  wanted: boolean
  attempts: number
  qr: string | null
  pairingCode: string | null
  method: PairingMethod | null
  /** The counters of a pairing in progress (docs/live-whatsapp.md § "Pairing give-up rules"); null when paired. */
  pairing: PairingAttempts | null
  waVersion: string | null
  /** Gives back the connect slot the current session holds while its socket opens; null when it holds none. */
  releaseSlot: Release | null
}

export interface LifecycleDeps {
  ctx: DomainContext
  gateway: WhatsAppGateway
  scheduler: Scheduler
  lookups: LiveLookups
  links: PhoneLinks
  receipts: MessageReceipts
  /** Called after every pairing-state change of a phone, with the status when a status write (committed) caused it. */
  notify: (phoneId: string, written?: ConnectionStatus) => void
  random?: () => number
  /** How many sockets may be opening (pairing or reconnecting) at once (connect-gate.ts). */
  connectConcurrency?: number
  /** The event loop's lag; with it the gate admits a connect only while the loop is calm. */
  lag?: LagSource
  /** Fences status writes of the phones this node believes it holds (phone-ownership.ts); none on SQLite. */
  fence?: { of(phoneId: string): LeaseFence | null; refused(phoneId: string): void }
}

/**
 * Opens, closes and reconnects the phones' WhatsApp sessions (docs/decisions.md §
 * "Phones, groups, account and usage"): starts paired phones at boot, reconnects with capped jittered backoff and
 * runs pairing attempts. What a session reports is handled in session-events.ts.
 */
export type ConnectionLifecycle = ReturnType<typeof createConnectionLifecycle>

export async function createConnectionLifecycle(deps: LifecycleDeps) {
  const { ctx, gateway, scheduler, links } = deps
  const random = deps.random ?? Math.random
  const runtimes = new Map<string, Runtime>()
  const concurrency = deps.connectConcurrency ?? DEFAULT_CONNECT_CONCURRENCY
  const gate = createConnectGate({ concurrency, lag: deps.lag, clock: ctx.clock })
  let stopped = false

  const reopenDue = async (change: StatusChange) => async (phoneIds: string[]) => {
    for (const phoneId of phoneIds) {
      const rt = runtimes.get(phoneId)
      // A socket opened meanwhile (the operator's connect) is not doubled.
      if (rt?.wanted && !links.sessionOf(phoneId) && !rt.session && !stopped) await open(phoneId, rt, null, change)
    }
  }
  scheduler.on(RECONNECT_KIND, await reopenDue({}))
  scheduler.on(BOOT_CONNECT_KIND, await reopenDue(BOOT_CHANGE))

  function runtime(phoneId: string): Runtime {
    const rt = runtimes.get(phoneId) ?? { session: null, wanted: false, attempts: 0, qr: null, pairingCode: null, method: null, pairing: null, waVersion: null, releaseSlot: null }
    runtimes.set(phoneId, rt)
    return rt
  }

  // After stop the database is being closed: late socket events change nothing. In report order
  // per phone: on PostgreSQL two writes in flight could commit either way (pairing after connected).
  const setStatus = inOrderPerKey(async (phoneId: string, status: ConnectionStatus, change: StatusChange = {}): Promise<void> => {
    if (stopped) return
    if (!(await writePhoneStatus(ctx, phoneId, status, change, deps.fence?.of(phoneId) ?? null))) return deps.fence?.refused(phoneId)
    if (!stopped) deps.notify(phoneId, status)
  })

  /** Schedules the next reconnect with full jitter between half and all of the capped delay, so phones do not reconnect in step. */
  function scheduleReconnect(phoneId: string, rt: Runtime): number {
    const capped = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** rt.attempts++)
    const dueMs = ctx.clock.nowMs() + Math.round(capped * (0.5 + random() / 2))
    scheduler.schedule(RECONNECT_KIND, phoneId, dueMs)
    return dueMs
  }

  /** The status of a phone that stays offline: it needs pairing unless it has credentials. */
  const offline = async (phoneId: string): Promise<ConnectionStatus> => ((await gateway.hasCredentials(phoneId)) ? "disconnected" : "unpaired")

  async function open(phoneId: string, rt: Runtime, pairing: { method: PairingMethod } | null, change: StatusChange = {}): Promise<void> {
    const phone = await ctx.store.findPhone(phoneId)
    if (!phone) return gate.release(rt)
    let session: WhatsAppSession
    const events = sessionEventsFor(handlers, phoneId, rt, () => session)
    session = gateway.session(phoneId, events)
    rt.session = session
    rt.wanted = true
    if (await gateway.hasCredentials(phoneId)) {
      rt.pairing = null
      void setStatus(phoneId, "connecting", change)
      gate.whenFree(rt, () => rt.session === session && !stopped, () => session.connect())
    } else {
      const method = pairing?.method ?? rt.method ?? "qr"
      rt.method = method
      rt.pairing ??= new PairingAttempts()
      void setStatus(phoneId, "pairing", change)
      gate.whenFree(rt, () => rt.session === session && !stopped, () => session.connect(method === "code" ? { method: "code", phoneNumber: phone.phoneNumber } : { method: "qr" }))
    }
  }

  /** Forgets the phone's socket and what it showed; returns the session that was open. */
  function detach(phoneId: string, rt: Runtime | undefined): WhatsAppSession | null {
    scheduler.cancel(RECONNECT_KIND, phoneId)
    scheduler.cancel(BOOT_CONNECT_KIND, phoneId)
    links.attach(phoneId, null)
    if (!rt) return null
    const session = rt.session
    // The slot is held until a QR, code, connect or close (session-events.ts), or this detach.
    gate.release(rt)
    rt.wanted = false
    rt.session = null
    rt.qr = null
    rt.pairingCode = null
    return session
  }

  async function close(phoneId: string): Promise<void> {
    const rt = runtimes.get(phoneId)
    if (!rt) return
    await detach(phoneId, rt)?.close()
  }

  /**
   * Unlinks the device when a session is open (WhatsApp needs the socket to remove a companion;
   * without one the phone shows the device until it is removed there) and always wipes the
   * credentials, so the phone must be paired again.
   */
  async function unlink(phoneId: string): Promise<void> {
    const session = detach(phoneId, runtimes.get(phoneId))
    await session?.logout().catch((err) => ctx.logger.warn("unlinking the device failed; credentials wiped anyway", { phoneId, err }))
    gateway.wipeCredentials(phoneId)
    deps.lookups.forget(phoneId)
  }

  /**
   * Takes up phones this process now owns (all of them at boot with one node; those a lease
   * brought with several): connects every one that was online before, spread over the boot
   * stagger, and marks pairings a restart cut short as unpaired.
   */
  async function adopt(phoneIds: readonly string[]): Promise<void> {
    if (stopped) return
    const stayingOffline = await ctx.store.listPhonesStayingOffline()
    const paired: string[] = []
    const adopted = new Set(phoneIds)
    for (const phone of await ctx.store.listAllPhones()) {
      if (!adopted.has(phone.id) || stayingOffline.has(phone.id)) continue
      if (await gateway.hasCredentials(phone.id)) {
        paired.push(phone.id)
      } else if (phone.connectionStatus !== "unpaired" && phone.connectionStatus !== "logged_out") {
        // A pairing cut short by a restart left no credentials: the phone is unpaired again.
        void setStatus(phone.id, "unpaired")
      }
    }
    const windowMs = bootStaggerWindowMs(paired.length, concurrency)
    for (const phoneId of paired) runtime(phoneId).wanted = true
    if (windowMs === 0) return (await reopenDue(BOOT_CHANGE))(paired)
    for (const phoneId of paired) scheduler.schedule(BOOT_CONNECT_KIND, phoneId, ctx.clock.nowMs() + Math.round(random() * windowMs))
  }

  const handlers = {
    ctx, gateway, links, receipts: deps.receipts, lookups: deps.lookups, notify: deps.notify,
    setStatus,
    open,
    offline,
    scheduleReconnect,
    releaseSlot: (rt: Runtime) => gate.release(rt),
    holdSlot: (rt: Runtime) => gate.hold(rt),
    stopped: () => stopped,
  }

  return {
    runtime,
    peek: (phoneId: string) => runtimes.get(phoneId),
    drop: (phoneId: string) => void runtimes.delete(phoneId),
    phones: () => [...runtimes.keys()],
    setStatus,
    open,
    close,
    unlink,
    adopt,
    /** Cancels the backoff of a phone about to be connected by hand. */
    cancelReconnect: (phoneId: string) => {
      scheduler.cancel(RECONNECT_KIND, phoneId)
      scheduler.cancel(BOOT_CONNECT_KIND, phoneId)
    },
    /** Sockets opening now and phones waiting for a connect slot. */
    connectSlots: () => ({ opening: gate.opening, waiting: gate.waiting }),
    markStopped: () => void (stopped = true),
  }
}
