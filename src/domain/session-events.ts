import { recordEcho } from "./echo-messages"
import { recordHistoryChunk } from "./history-sync"
import type { ConnectionStatus, PairingMethod } from "../lib/vocabulary"
import type { PhoneRow } from "../store/phones"
import type { ConnectionFailure } from "../whatsapp/failures"
import type { DisconnectReason, SessionEvents, WhatsAppGateway, WhatsAppSession } from "../whatsapp/gateway"
import type { Runtime } from "./connection-lifecycle"
import type { DomainContext } from "./context"
import type { LiveLookups } from "./live-lookups"
import type { MessageReceipts } from "./message-receipts"
import type { PhoneLinks } from "./phone-links"
import { clientVersionEvents } from "./client-version-events"
import { recordInbound } from "./inbound"
import { recordInboundAction } from "./inbound-actions"
import { recordPollVote } from "./polls"
import { callEventsFor } from "./calls"
import { recordGroupNotice } from "./group-events"
import { phoneAppStateEvents } from "./phone-app-state"
import { PAIRING_MAX_CODES, PAIRING_MAX_QR_CODES } from "./pairing-attempts"
import { recordFailure, type StatusChange } from "./phone-status"

/**
 * What one session reports, turned into connection changes: pairing codes shown, connected,
 * closed (and whether to reconnect, from the adapter's final-or-retry decision). Acks and receipts
 * go to the message receipts and inbound messages to the inbox. Events of a session that is no
 * longer the phone's current one are ignored.
 */
export function sessionEventsFor(h: LifecycleHandlers, phoneId: string, rt: Runtime, session: () => WhatsAppSession): SessionEvents {
  const { ctx } = h
  const current = () => rt.session === session()
  return {
    ...clientVersionEvents(ctx, h.notify, phoneId, rt, current),
    qr(qr) {
      if (!current()) return
      // The socket is open and waits for a person to scan: it no longer competes for CPU.
      h.releaseSlot(rt)
      if (rt.pairing?.qrShown() === "give_up") return expirePairing(h, phoneId, rt, `${PAIRING_MAX_QR_CODES} QR codes went unscanned`)
      rt.qr = qr
      void h.setStatus(phoneId, "pairing")
    },
    pairingCode(code) {
      if (!current()) return
      h.releaseSlot(rt)
      if (rt.pairing?.codeShown() === "give_up") return expirePairing(h, phoneId, rt, `${PAIRING_MAX_CODES} pairing codes went unused`)
      rt.pairingCode = code
      void h.setStatus(phoneId, "pairing")
    },
    scanned() {
      if (!current()) return
      // What follows is pairing's CPU-heavy phase (signature checks, the fresh socket's login and
      // its first pre-keys): it holds a slot until that login connects or fails.
      h.holdSlot(rt)
    },
    async connected({ phoneNumber }) {
      if (!current()) return
      h.releaseSlot(rt)
      const phone = await ctx.store.findPhone(phoneId)
      if (!phone) return
      if (phoneNumber !== phone.phoneNumber) return unlinkMismatch(h, phone, rt, session(), phoneNumber)
      h.links.attach(phoneId, session())
      rt.attempts = 0
      rt.qr = null
      rt.pairingCode = null
      rt.method = null
      rt.pairing = null
      ctx.logger.info(`${phone.phoneNumber} is connected to WhatsApp`, { phoneId, waVersion: rt.waVersion })
      void h.setStatus(phoneId, "connected", { lastError: null }).then(() => (h.stopped() ? undefined : h.links.connected(phoneId)))
    },
    async disconnected({ reason, final, failure }) {
      if (!current()) return
      const reopensAtOnce = reason === "restart_required" && rt.wanted && !h.stopped()
      // A fresh socket WhatsApp asks for right after a scan opens on the slot taken at the scan.
      if (!reopensAtOnce) h.releaseSlot(rt)
      const wasConnected = h.links.sessionOf(phoneId) !== null
      h.links.attach(phoneId, null)
      rt.session = null
      rt.qr = null
      rt.pairingCode = null
      if (reason === "closed_by_us") return
      if (wasConnected) h.links.disconnected(phoneId)
      if (reopensAtOnce) {
        // WhatsApp asks for a fresh socket (always right after pairing): open it at once.
        h.open(phoneId, rt, null, { reason: "restart_required", willReconnect: true })
        return
      }
      await onFailure(h, phoneId, rt, reason, final, failure)
    },
    partAcked: (id, atMs) => void h.receipts.partAcked(id, atMs),
    partRejected: (id, rejection, atMs) => void h.receipts.partRejected(id, rejection, atMs),
    receipt: (id, kind, atMs) => void h.receipts.receipt(id, kind, atMs),
    inbound: (message) =>
      void recordInbound(ctx, phoneId, message).catch((err) => ctx.logger.error("recording an inbound message failed", { phoneId, err })),
    historyChunk: async (chunk) => void (await recordHistoryChunk(ctx, phoneId, chunk).catch((err) => ctx.logger.error("recording a history chunk failed", { phoneId, err }))),
    echo: (message) => void recordEcho(ctx, phoneId, message).catch((err) => ctx.logger.error("recording a message the phone sent failed", { phoneId, err })),
    inboundAction: (action) =>
      void recordInboundAction(ctx, phoneId, action).catch((err) => ctx.logger.error("recording a reaction, edit or deletion failed", { phoneId, err })),
    pollVote: (vote) => void recordPollVote(ctx, phoneId, vote).catch((err) => ctx.logger.error("recording a poll vote failed", { phoneId, err })),
    call: callEventsFor(ctx, phoneId, session),
    groupChanged: (notice) =>
      void recordGroupNotice(ctx, phoneId, notice).catch((err) => ctx.logger.error("recording a group change failed", { phoneId, err })),
    ...phoneAppStateEvents(ctx, phoneId),
    offlineMarkerMissed: (info) => {
      if (!current() || h.stopped()) return
      void recordOfflineMarkerMissed(h, phoneId, info).catch((err) => ctx.logger.error("recording the offline-marker watchdog failed", { phoneId, err }))
    },
  }
}

/**
 * WhatsApp's end-of-offline-queue marker did not come in time after login, so the adapter released
 * the inbound events Baileys was holding (docs/live-whatsapp.md § "Receiving stalls"). Logged once
 * per connection, and kept on the phone so its pairing state and `wagate doctor` say when.
 */
async function recordOfflineMarkerMissed(h: LifecycleHandlers, phoneId: string, info: { atMs: number; waitMs: number; held: boolean }): Promise<void> {
  const { ctx } = h
  const phone = await ctx.store.findPhone(phoneId)
  if (!phone) return
  const seconds = Math.round(info.waitMs / 1000)
  ctx.logger.warn(
    `${phone.phoneNumber}: WhatsApp did not send the end of its offline queue within ${seconds} s of login; ` +
      `wagate released the inbound messages held until then (${info.held ? "some were held" : "none were held"})`,
    { phoneId, atMs: info.atMs },
  )
  await ctx.store.write(async (q) => await q.updatePhoneOfflineWatchdog(phoneId, info.atMs))
  if (!h.stopped()) h.notify(phoneId)
}

/**
 * After a close that was not ours: a final close stops (docs/decisions.md §
 * "Phones, groups, account and usage"), a pairing retries while it stays `pairing` until its give-up rules say
 * stop, and a paired phone goes `disconnected` and reconnects with backoff.
 */
async function onFailure(h: LifecycleHandlers, phoneId: string, rt: Runtime, reason: DisconnectReason, final: boolean, failure: ConnectionFailure | null): Promise<void> {
  const { ctx, gateway } = h
  if (reason === "logged_out") {
    rt.wanted = false
    rt.pairing = null
    gateway.wipeCredentials(phoneId)
    h.lookups.forget(phoneId)
    const lastError = await recordFailure(ctx, phoneId, failure, null)
    void h.setStatus(phoneId, "logged_out", { reason, willReconnect: false, lastError }).then(() => (h.stopped() ? undefined : h.links.gone(phoneId)))
    return
  }
  const pairing = rt.pairing !== null && !(await gateway.hasCredentials(phoneId))
  const givesUp = final || !rt.wanted || h.stopped() || (pairing && rt.pairing!.connectFailed() === "give_up")
  if (givesUp) {
    rt.wanted = false
    rt.pairing = null
    const lastError = await recordFailure(ctx, phoneId, failure, null)
    // An unpaired phone that stops pairing is not a disconnection: no event, no stays-offline mark.
    const status = await h.offline(phoneId)
    void h.setStatus(phoneId, status, status === "disconnected" ? { reason, willReconnect: false, lastError } : { lastError })
    return
  }
  const dueMs = h.scheduleReconnect(phoneId, rt)
  const lastError = await recordFailure(ctx, phoneId, failure, dueMs)
  // A pairing that retries is still pairing: flipping to `disconnected` between attempts would say the phone was once connected.
  void h.setStatus(phoneId, pairing ? "pairing" : "disconnected", pairing ? { lastError } : { reason, willReconnect: true, lastError })
}

/** Ends a pairing whose QR codes or pairing codes ran out: closes its socket and waits for an operator. */
async function expirePairing(h: LifecycleHandlers, phoneId: string, rt: Runtime, cause: string): Promise<void> {
  const open = rt.session
  rt.session = null
  rt.wanted = false
  rt.pairing = null
  rt.qr = null
  rt.pairingCode = null
  void open?.close()
  const failure: ConnectionFailure = { code: "pairing_expired", cause, host: "", httpStatus: null, waVersion: rt.waVersion }
  void h.setStatus(phoneId, await h.offline(phoneId), { lastError: await recordFailure(h.ctx, phoneId, failure, null) })
}

/** Someone scanned with another WhatsApp account: sending as it would lie about `from`. */
async function unlinkMismatch(h: LifecycleHandlers, phone: PhoneRow, rt: Runtime, mismatched: WhatsAppSession, got: string): Promise<void> {
  const phoneId = phone.id
  rt.wanted = false
  rt.pairing = null
  // Detached first: the close the unlink causes (logged_out) must not replace this reason.
  rt.session = null
  const failure: ConnectionFailure = { code: "account_mismatch", cause: got, host: "", httpStatus: null, waVersion: rt.waVersion }
  const lastError = await recordFailure(h.ctx, phoneId, failure, null)
  void mismatched
    .logout()
    .catch((err) => h.ctx.logger.warn("unlinking the mismatched account failed; credentials wiped anyway", { phoneId, err }))
    .finally(() => {
      h.gateway.wipeCredentials(phoneId)
      return h.setStatus(phoneId, "logged_out", { reason: "phone_number_mismatch", willReconnect: false, lastError })
    })
}

/** What session-events.ts may do to the lifecycle. */
export type LifecycleHandlers = {
  ctx: DomainContext
  gateway: WhatsAppGateway
  links: PhoneLinks
  receipts: MessageReceipts
  lookups: LiveLookups
  notify: (phoneId: string) => void
  setStatus(phoneId: string, status: ConnectionStatus, change?: StatusChange): Promise<void>
  open(phoneId: string, rt: Runtime, pairing: { method: PairingMethod } | null, change?: StatusChange): void
  offline(phoneId: string): Promise<ConnectionStatus>
  scheduleReconnect(phoneId: string, rt: Runtime): number
  /** Gives back the connect slot of the phone's current session (it showed a code, connected or closed). */
  releaseSlot(rt: Runtime): void
  /** Takes a connect slot, when one is free, for the phone's current session's heavy phase. */
  holdSlot(rt: Runtime): void
  stopped(): boolean
}
