import { leaseHolder, noSessionError } from "./wa-targets"
import { errors } from "../lib/errors"
import type { ConnectionStatus, PairingMethod } from "../lib/vocabulary"
import { type PhoneRow } from "../store/phones"
import type { WhatsAppSession } from "../whatsapp/gateway"
import { createConnectionLifecycle, type LifecycleDeps } from "./connection-lifecycle"
import type { Group } from "./groups"
import { canPost } from "./live-lookups"
import { createPairingListeners, type AllPhonesListener } from "./pairing-listeners"
import type { PairingRelay, PairingRelayHandlers } from "./pairing-relay"
import { stateOf, type PairingState } from "./pairing-state"
import type { PhoneOwnership } from "./phone-ownership"
import { restorePhoneStatus } from "./phone-status"

export { RECONNECT_MAX_MS, RECONNECT_MIN_MS } from "./connection-lifecycle"
export type { PairingState } from "./pairing-state"

/**
 * Keeps every paired phone connected and its `connectionStatus` true (docs/decisions.md §
 * "Phones, groups, account and usage"): the operator's face of the connection lifecycle
 * (connection-lifecycle.ts), whose status writes (phone-status.ts) carry their
 * `phone.connected` / `phone.disconnected` events.
 */
export interface SessionManager {
  start(): Promise<void>
  connect(phoneId: string, method: PairingMethod): Promise<PairingState>
  disconnect(phoneId: string): Promise<PhoneRow>
  /**
   * Stops a pairing nobody waits for any more (`wagate phones pair` interrupted): the socket is
   * closed and, unless the phone got paired meanwhile, it is left as it was before, `unpaired`
   * or `logged_out` (`before`), not `pairing`.
   */
  abandonPairing(phoneId: string, before: ConnectionStatus): Promise<PhoneRow>
  logout(phoneId: string): Promise<PhoneRow>
  /** Called before a phone is deleted: unlinks it and fails its queued sends. */
  forget(phoneId: string): Promise<void>
  /** The phone's pairing state; on a node without its socket, with what its holder relayed (pairing-relay.ts). */
  pairingState(phoneId: string): Promise<PairingState>
  /** Calls `listener` on every pairing-state change of the phone, on whichever node it is held; returns the unsubscribe. */
  subscribe(phoneId: string, listener: (state: PairingState) => void): () => void
  /**
   * Calls `listener` on every pairing-state change of any phone (serve prints QRs with it);
   * `relayed` says the change was heard from the node holding the phone.
   */
  subscribeAll(listener: AllPhonesListener): () => void
  /** The phone's session when it is connected. */
  sessionOf(phoneId: string): WhatsAppSession | null
  /** Postable groups of a connected phone (the live source of GET /v1/groups). */
  liveGroups(phone: PhoneRow): Promise<Group[]>
  stop(): Promise<void>
}

/** The manager is built from what its lifecycle needs, less the listener it supplies itself, and the phones this process owns. */
export async function createSessionManager(
  deps: Omit<LifecycleDeps, "notify"> & {
    ownership: PhoneOwnership
    /** How pairing states reach the live pages of other nodes (localPairingRelay() on one process). */
    relay: PairingRelay
    /** Called after the sessions took up phones this process came to own (the send queue takes up their jobs). */
    onAdopted?: (phoneIds: string[]) => Promise<void>
  },
): Promise<SessionManager> {
  const { ctx, gateway, links, ownership, relay } = deps
  const listeners = createPairingListeners()

  /** A change made here: this node's listeners hear it, and the other nodes' through the relay. */
  async function notify(phoneId: string, written?: ConnectionStatus): Promise<void> {
    // A committed status that may end its need of a connection: the store decides. Never from a read, which
    // can predate this node's own `pairing` write and so let go of a phone being paired.
    if (written === "unpaired" || written === "logged_out" || written === "disconnected") void ownership.letGoIfUnneeded(phoneId)
    const rt = lifecycle.peek(phoneId)
    const phone = await ctx.store.findPhone(phoneId)
    if (!rt || !phone) return
    const state = stateOf(phone, rt)
    listeners.emit(phone, state, false)
    relay.publish(phoneId, state)
  }

  /** The state as this node knows it: its own socket's, or what the holder relayed. */
  const stateHere = (phone: PhoneRow) => (ownership.owns(phone.id) ? stateOf(phone, lifecycle.peek(phone.id)) : stateOf(phone, relay.heard(phone.id)))

  /** Runs `act` with the phone's row when this node holds the phone (`held`), or when another does (`elsewhere`). */
  async function withPhone(phoneId: string, when: "held" | "elsewhere", act: (phone: PhoneRow) => void): Promise<void> {
    if (ownership.owns(phoneId) !== (when === "held")) return
    const phone = await ctx.store.findPhone(phoneId).catch(() => null)
    if (phone) act(phone)
  }
  const relayHandlers: PairingRelayHandlers = {
    heard: (phoneId) => void withPhone(phoneId, "elsewhere", (phone) => listeners.emit(phone, stateHere(phone), true)),
    wanted: (phoneId) => void withPhone(phoneId, "held", (phone) => relay.publish(phoneId, stateHere(phone))),
    resubscribed: () => listeners.watched().filter((phoneId) => !ownership.owns(phoneId)).forEach((phoneId) => relay.want(phoneId)),
  }

  // Every status write of a socket is fenced on several nodes (a phone not held gets a token no lease carries).
  const fence = { of: (id: string) => ownership.fenceOf(id), refused: (id: string) => void (ownership.owns(id) && ownership.refused(id)) }
  const lifecycle = await createConnectionLifecycle({ ...deps, notify, fence })

  /**
   * The phone, when this process may act on its socket: with several nodes, the node that holds
   * its lease (docs/operations.md § "Running several nodes"). `unheld: "allow"` lets a request
   * through when no node holds the phone, for changes that need no socket.
   */
  async function requirePhone(phoneId: string, unheld: "allow" | "refuse" = "refuse"): Promise<PhoneRow> {
    const phone = await ctx.store.findPhone(phoneId)
    if (!phone) throw errors.phoneNotFound(phoneId)
    if (ownership.owns(phoneId) || (await ownership.claim(phoneId))) return phone
    const holder = await leaseHolder(ctx, phoneId)
    if (holder === null && unheld === "allow") return phone
    throw errors.phoneOnOtherNode(phone.phoneNumber, holder)
  }

  /** Closes the sockets of phones another node owns now; that node writes their status. */
  async function release(phoneIds: readonly string[]): Promise<void> {
    for (const phoneId of phoneIds) {
      const wasConnected = links.sessionOf(phoneId) !== null
      await lifecycle.close(phoneId)
      if (wasConnected) links.disconnected(phoneId)
    }
  }

  return {
    async start() {
      await relay.start(relayHandlers)
      await ownership.start({
        gained: async (phoneIds) => {
          phoneIds.forEach((phoneId) => relay.forget(phoneId))
          await lifecycle.adopt(phoneIds)
          await deps.onAdopted?.(phoneIds)
        },
        lost: release,
      })
    },
    async connect(phoneId, method) {
      const phone = await requirePhone(phoneId)
      const rt = lifecycle.runtime(phoneId)
      if (rt.session && (links.sessionOf(phoneId) || rt.method === method || (await gateway.hasCredentials(phoneId)))) return stateOf((await ctx.store.findPhone(phoneId))!, rt)
      if (rt.session) await lifecycle.close(phoneId)
      // A reconnect waiting in its backoff would open a second socket beside this one.
      lifecycle.cancelReconnect(phoneId)
      rt.method = method
      rt.attempts = 0
      // A new request starts a new series of attempts: its give-up counters and its last error.
      rt.pairing = null
      await lifecycle.open(phone.id, rt, { method }, { lastError: null })
      await Promise.resolve()
      return stateOf(await ctx.store.findPhone(phoneId) ?? phone, rt)
    },
    async disconnect(phoneId) {
      await requirePhone(phoneId, "allow")
      const wasConnected = links.sessionOf(phoneId) !== null
      await lifecycle.close(phoneId)
      if (wasConnected) links.disconnected(phoneId)
      const phone = (await ctx.store.findPhone(phoneId))!
      if (phone.connectionStatus !== "unpaired" && phone.connectionStatus !== "logged_out") {
        const status = (await gateway.hasCredentials(phoneId)) ? "disconnected" : "unpaired"
        await lifecycle.setStatus(phoneId, status, { reason: "disconnected_by_operator", willReconnect: false })
      }
      // requirePhone may have claimed it just for this: an offline phone takes no node's capacity.
      await ownership.letGoIfUnneeded(phoneId)
      return (await ctx.store.findPhone(phoneId))!
    },
    async abandonPairing(phoneId, before) {
      await requirePhone(phoneId)
      await lifecycle.close(phoneId)
      if (!(await gateway.hasCredentials(phoneId))) {
        await restorePhoneStatus(ctx, phoneId, before === "logged_out" ? "logged_out" : "unpaired")
        await notify(phoneId)
      }
      await ownership.letGoIfUnneeded(phoneId)
      return (await ctx.store.findPhone(phoneId))!
    },
    async logout(phoneId) {
      const phone = await requirePhone(phoneId, "allow")
      await lifecycle.unlink(phoneId)
      if (phone.connectionStatus !== "unpaired") await lifecycle.setStatus(phoneId, "logged_out", { reason: "logged_out_by_operator", willReconnect: false })
      await links.gone(phoneId)
      await ownership.letGoIfUnneeded(phoneId)
      return (await ctx.store.findPhone(phoneId))!
    },
    async forget(phoneId) {
      await requirePhone(phoneId, "allow")
      await lifecycle.unlink(phoneId)
      await links.gone(phoneId)
      lifecycle.drop(phoneId)
      listeners.drop(phoneId)
      relay.forget(phoneId)
    },
    async pairingState(phoneId) {
      const phone = await ctx.store.findPhone(phoneId)
      if (!phone) throw errors.phoneNotFound(phoneId)
      return stateHere(phone)
    },
    subscribe(phoneId, listener) {
      lifecycle.runtime(phoneId)
      // A stream opened here for a phone held elsewhere asks the holder for what only it knows.
      if (!ownership.owns(phoneId) && relay.heard(phoneId) === null) relay.want(phoneId)
      return listeners.subscribe(phoneId, listener)
    },
    subscribeAll: (listener) => listeners.subscribeAll(listener),
    sessionOf: (phoneId) => links.sessionOf(phoneId),
    async liveGroups(phone) {
      const session = links.sessionOf(phone.id)
      if (!session) throw await noSessionError(ctx, phone, phone.id)
      const groups = await deps.lookups.groups(phone.id, session)
      return groups.filter(canPost).map((g) => ({ id: g.id, name: g.name, isCommunityAnnounce: g.announcementOnly }))
    },
    async stop() {
      // Record the stop before closing, so a stopped data directory never claims a live socket
      // and receivers learn the phone will be back (the event is delivered at the next start).
      const connected = links.connectedPhones()
      await Promise.all(connected.map((phoneId) => lifecycle.setStatus(phoneId, "disconnected", { reason: "server_stopped", willReconnect: true })))
      lifecycle.markStopped()
      await Promise.all(lifecycle.phones().map((phoneId) => lifecycle.close(phoneId)))
      // Only now, with every socket closed, may another node open them.
      await ownership.stop()
      await relay.stop()
    },
  }
}
