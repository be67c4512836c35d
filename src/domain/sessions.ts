import type { Scheduler } from "../lib/scheduler"
import { errors } from "../lib/errors"
import { findPhone, listAllPhones, listPhonesStayingOffline, updatePhoneConnection, updatePhoneLastError, type ConnectionStatus, type PhoneRow } from "../store/phones"
import type { ConnectionFailure } from "../whatsapp/failures"
import type { DisconnectReason, SessionEvents, WhatsAppGateway, WhatsAppSession } from "../whatsapp/gateway"
import { lastErrorOf, logFailure, toLastError, type LastError } from "./connection-errors"
import type { DomainContext } from "./context"
import { buildPhoneEventData } from "./event-catalogue"
import type { Group } from "./groups"
import { recordInbound } from "./inbound"
import { canPost, type LiveLookups } from "./live-lookups"
import type { LiveSender } from "./live-sender"
import { PAIRING_MAX_CODES, PAIRING_MAX_QR_CODES, PairingAttempts } from "./pairing-attempts"

/** What the admin API shows of a phone's pairing (API-DECISIONS §12). */
export interface PairingState {
  connectionStatus: ConnectionStatus
  /** The raw QR string to render, while a QR pairing waits for a scan. */
  qr: string | null
  /** The code to type on the phone, while a code pairing waits. */
  pairingCode: string | null
  /** Why the last connect or pairing attempt failed; null once connected or asked to connect again. */
  lastError: LastError | null
  /** The WhatsApp Web version the phone's last connect announced (x.y.z); null before one. */
  waVersion: string | null
  updatedAtMs: number
}

/** Reconnect backoff bounds (API-DECISIONS §9). */
export const RECONNECT_MIN_MS = 1_000
export const RECONNECT_MAX_MS = 60_000
const RECONNECT_KIND = "reconnect"

/** Reasons after which wagate never reconnects by itself (API-DECISIONS §9: no loops on 401/403/405/411/440). */
const TERMINAL: ReadonlySet<DisconnectReason> = new Set([
  "logged_out",
  "replaced",
  "forbidden",
  "outdated_version",
  "multidevice_mismatch",
  "pairing_expired",
])

/**
 * Keeps every paired phone connected and its `connectionStatus` true (API-DECISIONS §9):
 * starts paired phones at boot, reconnects with capped jittered backoff, never loops on the
 * terminal reasons, pairs new phones by QR or code, and writes each connection change with its
 * `phone.connected` / `phone.disconnected` event in one transaction.
 */
export interface SessionManager {
  start(): void
  connect(phoneId: string, method: "qr" | "code"): Promise<PairingState>
  disconnect(phoneId: string): Promise<PhoneRow>
  logout(phoneId: string): Promise<PhoneRow>
  /** Called before a phone is deleted: unlinks it and fails its queued sends. */
  forget(phoneId: string): Promise<void>
  pairingState(phoneId: string): PairingState
  /** Calls `listener` on every pairing-state change of the phone; returns the unsubscribe. */
  subscribe(phoneId: string, listener: (state: PairingState) => void): () => void
  /** Calls `listener` on every pairing-state change of any phone (serve prints QRs with it). */
  subscribeAll(listener: (phone: PhoneRow, state: PairingState) => void): () => void
  /** The phone's session when it is connected. */
  sessionOf(phoneId: string): WhatsAppSession | null
  /** Postable groups of a connected phone (the live source of GET /v1/groups). */
  liveGroups(phone: PhoneRow): Promise<Group[]>
  stop(): Promise<void>
}

interface Runtime {
  session: WhatsAppSession | null
  connected: boolean
  /** The operator wants this phone online; false after disconnect/logout or a terminal close. */
  wanted: boolean
  attempts: number
  qr: string | null
  pairingCode: string | null
  method: "qr" | "code" | null
  /** The counters of a pairing in progress (docs/live-whatsapp.md, give-up rules); null when paired. */
  pairing: PairingAttempts | null
  waVersion: string | null
  listeners: Set<(state: PairingState) => void>
}

/** What a connection change writes besides the status. */
interface StatusChange {
  reason?: string
  willReconnect?: boolean
  /** Replaces the phone's last error (null clears it); left as it is when absent. */
  lastError?: LastError | null
}

export function createSessionManager(deps: {
  ctx: DomainContext
  gateway: WhatsAppGateway
  scheduler: Scheduler
  lookups: LiveLookups
  sender: () => LiveSender
  random?: () => number
}): SessionManager {
  const { ctx, gateway, scheduler } = deps
  const random = deps.random ?? Math.random
  const runtimes = new Map<string, Runtime>()
  const everyPhone = new Set<(phone: PhoneRow, state: PairingState) => void>()
  let stopped = false

  scheduler.on(RECONNECT_KIND, (phoneIds) => {
    for (const phoneId of phoneIds) {
      const rt = runtimes.get(phoneId)
      // A socket opened meanwhile (the operator's connect) is not doubled.
      if (rt?.wanted && !rt.connected && !rt.session && !stopped) openSession(phoneId, rt, null)
    }
  })

  function runtime(phoneId: string): Runtime {
    let rt = runtimes.get(phoneId)
    if (!rt) {
      rt = {
        session: null,
        connected: false,
        wanted: false,
        attempts: 0,
        qr: null,
        pairingCode: null,
        method: null,
        pairing: null,
        waVersion: null,
        listeners: new Set(),
      }
      runtimes.set(phoneId, rt)
    }
    return rt
  }

  function stateOf(phone: PhoneRow, rt: Runtime | undefined): PairingState {
    return {
      connectionStatus: phone.connectionStatus,
      qr: rt?.qr ?? null,
      pairingCode: rt?.pairingCode ?? null,
      lastError: lastErrorOf(phone),
      waVersion: rt?.waVersion ?? null,
      updatedAtMs: phone.updatedAtMs,
    }
  }

  function notify(phoneId: string): void {
    const rt = runtimes.get(phoneId)
    const phone = findPhone(ctx.db, phoneId)
    if (!rt || !phone) return
    const state = stateOf(phone, rt)
    for (const listener of rt.listeners) listener(state)
    for (const listener of everyPhone) listener(phone, state)
  }

  /**
   * Writes a connection change; emits `phone.connected` when entering `connected`, and
   * `phone.disconnected` when leaving it or when the phone must be paired again.
   */
  async function setStatus(phoneId: string, status: ConnectionStatus, change: StatusChange = {}): Promise<void> {
    // After stop the database is being closed: late socket events change nothing.
    if (stopped) return
    await ctx.writer.write((db, tx) => {
      const phone = findPhone(db, phoneId)
      if (!phone) return
      const nowMs = ctx.clock.nowMs()
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
      updatePhoneConnection(db, next, status === "disconnected" && change.willReconnect === false)
      if (change.lastError !== undefined) updatePhoneLastError(db, phone.id, change.lastError)
      if (!enteringConnected && !leavingConnected && !lostPairing) return
      ctx.events.record(db, tx, {
        accountId: phone.accountId,
        env: "live",
        type: enteringConnected ? "phone.connected" : "phone.disconnected",
        occurredAtMs: nowMs,
        data: buildPhoneEventData({ ...phone, ...next }, change),
      })
    })
    if (!stopped) notify(phoneId)
  }

  function reconnectDelayMs(attempts: number): number {
    const capped = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** attempts)
    // Full jitter between half and all of the capped delay, so phones do not reconnect in step.
    return Math.round(capped * (0.5 + random() / 2))
  }

  function eventsFor(phoneId: string, rt: Runtime, session: () => WhatsAppSession): SessionEvents {
    const current = () => rt.session === session()
    return {
      connecting({ waVersion }) {
        if (!current()) return
        rt.waVersion = waVersion
        notify(phoneId)
      },
      qr(qr) {
        if (!current()) return
        if (rt.pairing?.qrShown() === "give_up") return expirePairing(phoneId, rt, `${PAIRING_MAX_QR_CODES} QR codes went unscanned`)
        rt.qr = qr
        void setStatus(phoneId, "pairing")
      },
      pairingCode(code) {
        if (!current()) return
        if (rt.pairing?.codeShown() === "give_up") return expirePairing(phoneId, rt, `${PAIRING_MAX_CODES} pairing codes went unused`)
        rt.pairingCode = code
        void setStatus(phoneId, "pairing")
      },
      connected({ phoneNumber }) {
        if (!current()) return
        const phone = findPhone(ctx.db, phoneId)
        if (!phone) return
        if (phoneNumber !== phone.phoneNumber) return unlinkMismatch(phone, rt, session(), phoneNumber)
        rt.connected = true
        rt.attempts = 0
        rt.qr = null
        rt.pairingCode = null
        rt.method = null
        rt.pairing = null
        ctx.logger.info(`${phone.phoneNumber} is connected to WhatsApp`, { phoneId, waVersion: rt.waVersion })
        void setStatus(phoneId, "connected", { lastError: null }).then(() => (stopped ? undefined : deps.sender().phoneConnected(phoneId)))
      },
      disconnected({ reason, failure }) {
        if (!current()) return
        const wasConnected = rt.connected
        rt.connected = false
        rt.session = null
        rt.qr = null
        rt.pairingCode = null
        if (reason === "closed_by_us") return
        if (wasConnected) deps.sender().phoneDisconnected(phoneId)
        if (reason === "restart_required" && rt.wanted && !stopped) {
          // WhatsApp asks for a fresh socket (always right after pairing): open it at once.
          openSession(phoneId, rt, null, { reason: "restart_required", willReconnect: true })
          return
        }
        onFailure(phoneId, rt, reason, failure)
      },
      partAcked: (id, atMs) => void deps.sender().partAcked(id, atMs),
      partRejected: (id, code, atMs) => void deps.sender().partRejected(id, code, atMs),
      receipt: (id, kind, atMs) => void deps.sender().receipt(id, kind, atMs),
      inbound: (message) =>
        void recordInbound(ctx, phoneId, message).catch((err) => ctx.logger.error("recording an inbound message failed", { phoneId, err })),
    }
  }

  /** Records and logs a failed attempt; returns its last error (null when the adapter named no failure). */
  function recordFailure(phoneId: string, failure: ConnectionFailure | null, nextAttemptAtMs: number | null): LastError | null {
    const phone = findPhone(ctx.db, phoneId)
    if (!failure || !phone) return null
    const lastError = toLastError(failure, ctx.clock.nowMs())
    logFailure(ctx.logger, phone, failure, lastError, nextAttemptAtMs)
    return lastError
  }

  /** The status of a phone that stays offline: it needs pairing unless it has credentials. */
  const offline = (phoneId: string): ConnectionStatus => (gateway.hasCredentials(phoneId) ? "disconnected" : "unpaired")

  /**
   * After a close that was not ours: the terminal reasons stop (docs/decisions.md, Phones,
   * groups, account and usage), a pairing retries while it stays `pairing` until its give-up
   * rules say stop, and a paired phone goes `disconnected` and reconnects with backoff.
   */
  function onFailure(phoneId: string, rt: Runtime, reason: DisconnectReason, failure: ConnectionFailure | null): void {
    if (reason === "logged_out") {
      rt.wanted = false
      rt.pairing = null
      gateway.wipeCredentials(phoneId)
      deps.lookups.forget(phoneId)
      const lastError = recordFailure(phoneId, failure, null)
      void setStatus(phoneId, "logged_out", { reason, willReconnect: false, lastError }).then(() =>
        stopped ? undefined : deps.sender().phoneGone(phoneId),
      )
      return
    }
    const pairing = rt.pairing !== null && !gateway.hasCredentials(phoneId)
    const givesUp = TERMINAL.has(reason) || !rt.wanted || stopped || (pairing && rt.pairing!.connectFailed() === "give_up")
    if (givesUp) {
      rt.wanted = false
      rt.pairing = null
      const lastError = recordFailure(phoneId, failure, null)
      // An unpaired phone that stops pairing is not a disconnection: no event, no stays-offline mark.
      const status = offline(phoneId)
      void setStatus(phoneId, status, status === "disconnected" ? { reason, willReconnect: false, lastError } : { lastError })
      return
    }
    const dueMs = ctx.clock.nowMs() + reconnectDelayMs(rt.attempts++)
    const lastError = recordFailure(phoneId, failure, dueMs)
    // A pairing that retries is still pairing: flipping to `disconnected` between attempts would say the phone was once connected.
    void setStatus(phoneId, pairing ? "pairing" : "disconnected", pairing ? { lastError } : { reason, willReconnect: true, lastError })
    scheduler.schedule(RECONNECT_KIND, phoneId, dueMs)
  }

  /** Ends a pairing whose QR codes or pairing codes ran out: closes its socket and waits for an operator. */
  function expirePairing(phoneId: string, rt: Runtime, cause: string): void {
    const open = rt.session
    rt.session = null
    rt.wanted = false
    rt.pairing = null
    rt.qr = null
    rt.pairingCode = null
    void open?.close()
    const failure: ConnectionFailure = { code: "pairing_expired", cause, host: "", httpStatus: null, waVersion: rt.waVersion }
    void setStatus(phoneId, offline(phoneId), { lastError: recordFailure(phoneId, failure, null) })
  }

  /** Someone scanned with another WhatsApp account: sending as it would lie about `from`. */
  function unlinkMismatch(phone: PhoneRow, rt: Runtime, mismatched: WhatsAppSession, got: string): void {
    const phoneId = phone.id
    rt.wanted = false
    rt.pairing = null
    // Detached first: the close the unlink causes (logged_out) must not replace this reason.
    rt.session = null
    const failure: ConnectionFailure = { code: "account_mismatch", cause: got, host: "", httpStatus: null, waVersion: rt.waVersion }
    const lastError = recordFailure(phoneId, failure, null)
    void mismatched
      .logout()
      .catch((err) => ctx.logger.warn("unlinking the mismatched account failed; credentials wiped anyway", { phoneId, err }))
      .finally(() => {
        gateway.wipeCredentials(phoneId)
        return setStatus(phoneId, "logged_out", { reason: "phone_number_mismatch", willReconnect: false, lastError })
      })
  }

  function openSession(phoneId: string, rt: Runtime, pairing: { method: "qr" | "code" } | null, change: StatusChange = {}): void {
    const phone = findPhone(ctx.db, phoneId)
    if (!phone) return
    let session: WhatsAppSession
    const events = eventsFor(phoneId, rt, () => session)
    session = gateway.session(phoneId, events)
    rt.session = session
    rt.wanted = true
    if (session.paired) {
      rt.pairing = null
      void setStatus(phoneId, "connecting", change)
      session.connect()
    } else {
      const method = pairing?.method ?? rt.method ?? "qr"
      rt.method = method
      rt.pairing ??= new PairingAttempts()
      void setStatus(phoneId, "pairing", change)
      session.connect(method === "code" ? { method: "code", phoneNumber: phone.phoneNumber } : { method: "qr" })
    }
  }

  function requirePhone(phoneId: string): PhoneRow {
    const phone = findPhone(ctx.db, phoneId)
    if (!phone) throw errors.phoneNotFound(phoneId)
    return phone
  }

  async function closeSession(phoneId: string): Promise<void> {
    const rt = runtimes.get(phoneId)
    if (!rt) return
    rt.wanted = false
    scheduler.cancel(RECONNECT_KIND, phoneId)
    const session = rt.session
    rt.session = null
    rt.connected = false
    rt.qr = null
    rt.pairingCode = null
    await session?.close()
  }

  /**
   * Unlinks the device when a session is open (WhatsApp needs the socket to remove a companion;
   * without one the phone shows the device until it is removed there) and always wipes the
   * credentials, so the phone must be paired again.
   */
  async function unlink(phoneId: string): Promise<void> {
    const rt = runtimes.get(phoneId)
    const session = rt?.session ?? null
    if (rt) {
      rt.wanted = false
      rt.session = null
      rt.connected = false
      rt.qr = null
      rt.pairingCode = null
    }
    scheduler.cancel(RECONNECT_KIND, phoneId)
    await session?.logout().catch((err) => ctx.logger.warn("unlinking the device failed; credentials wiped anyway", { phoneId, err }))
    gateway.wipeCredentials(phoneId)
    deps.lookups.forget(phoneId)
  }

  return {
    start() {
      const stayingOffline = listPhonesStayingOffline(ctx.db)
      for (const phone of listAllPhones(ctx.db)) {
        if (stayingOffline.has(phone.id)) continue
        if (gateway.hasCredentials(phone.id)) {
          // A phone the previous process left `connected` is reconnecting: say so in its event.
          openSession(phone.id, runtime(phone.id), null, { reason: "server_restarted", willReconnect: true })
        } else if (phone.connectionStatus !== "unpaired" && phone.connectionStatus !== "logged_out") {
          // A pairing cut short by a restart left no credentials: the phone is unpaired again.
          void setStatus(phone.id, "unpaired")
        }
      }
      deps.sender().start()
    },
    async connect(phoneId, method) {
      const phone = requirePhone(phoneId)
      const rt = runtime(phoneId)
      if (rt.session && (rt.connected || rt.method === method || gateway.hasCredentials(phoneId))) return stateOf(findPhone(ctx.db, phoneId)!, rt)
      if (rt.session) await closeSession(phoneId)
      // A reconnect waiting in its backoff would open a second socket beside this one.
      scheduler.cancel(RECONNECT_KIND, phoneId)
      rt.method = method
      rt.attempts = 0
      // A new request starts a new series of attempts: its give-up counters and its last error.
      rt.pairing = null
      openSession(phone.id, rt, { method }, { lastError: null })
      await Promise.resolve()
      return stateOf(findPhone(ctx.db, phoneId) ?? phone, rt)
    },
    async disconnect(phoneId) {
      requirePhone(phoneId)
      const wasConnected = runtimes.get(phoneId)?.connected ?? false
      await closeSession(phoneId)
      if (wasConnected) deps.sender().phoneDisconnected(phoneId)
      const phone = findPhone(ctx.db, phoneId)!
      if (phone.connectionStatus !== "unpaired" && phone.connectionStatus !== "logged_out") {
        await setStatus(phoneId, gateway.hasCredentials(phoneId) ? "disconnected" : "unpaired", { reason: "disconnected_by_operator", willReconnect: false })
      }
      return findPhone(ctx.db, phoneId)!
    },
    async logout(phoneId) {
      const phone = requirePhone(phoneId)
      await unlink(phoneId)
      if (phone.connectionStatus !== "unpaired") await setStatus(phoneId, "logged_out", { reason: "logged_out_by_operator", willReconnect: false })
      await deps.sender().phoneGone(phoneId)
      return findPhone(ctx.db, phoneId)!
    },
    async forget(phoneId) {
      await unlink(phoneId)
      await deps.sender().phoneGone(phoneId)
      runtimes.delete(phoneId)
    },
    pairingState(phoneId) {
      return stateOf(requirePhone(phoneId), runtimes.get(phoneId))
    },
    subscribe(phoneId, listener) {
      const rt = runtime(phoneId)
      rt.listeners.add(listener)
      return () => rt.listeners.delete(listener)
    },
    subscribeAll(listener) {
      everyPhone.add(listener)
      return () => everyPhone.delete(listener)
    },
    sessionOf(phoneId) {
      const rt = runtimes.get(phoneId)
      return rt?.connected ? rt.session : null
    },
    async liveGroups(phone) {
      const session = this.sessionOf(phone.id)
      if (!session) throw errors.phoneNotConnected(phone.phoneNumber, phone.connectionStatus)
      const groups = await deps.lookups.groups(phone.id, session)
      return groups.filter(canPost).map((g) => ({ id: g.id, name: g.name, isCommunityAnnounce: g.announcementOnly }))
    },
    async stop() {
      // Record the stop before closing, so a stopped data directory never claims a live socket
      // and receivers learn the phone will be back (the event is delivered at the next start).
      const connected = [...runtimes.entries()].filter(([, rt]) => rt.connected).map(([phoneId]) => phoneId)
      await Promise.all(connected.map((phoneId) => setStatus(phoneId, "disconnected", { reason: "server_stopped", willReconnect: true })))
      stopped = true
      await Promise.all([...runtimes.keys()].map((phoneId) => closeSession(phoneId)))
    },
  }
}
