import type { Clock } from "../lib/clock"
import { withDeadline } from "../lib/deadline"
import type { Logger } from "../lib/logger"
import { CONNECTION_STATUSES, type ConnectionStatus } from "../lib/vocabulary"
import type { Store } from "../store/store"
import type { PairingExtras, PairingState } from "./pairing-state"

/*
 * Pairing states across nodes (docs/architecture.md § "Nodes and leases"). A phone's QR, pairing
 * code and WhatsApp version are in the memory of the node holding its socket only; its row has
 * the rest. So that the dashboard's live pages work on whichever node serves them, the holder
 * publishes each change on the `pairing` signal channel, and every other node keeps the last
 * extras it heard and tells its own listeners. A node where a stream opens for a phone it does
 * not hold, and that has heard nothing of it yet, asks the holder on `pairing_wanted` to publish
 * its current state. Only nodes sharing a database relay anything: one process uses the local
 * relay, which does nothing.
 */

/** NOTIFY payloads must stay under 8000 bytes; a state bigger than this goes without its QR and code. */
export const MAX_PAIRING_PAYLOAD_BYTES = 7_000
/** How long stop() waits for the last states (`server_stopped`) to go out before the store closes. */
const STOP_WAIT_MS = 2_000

/** What the sessions do with what the relay hears. */
export interface PairingRelayHandlers {
  /** Another node published a new state of the phone (its extras are `heard(phoneId)` now). */
  heard(phoneId: string): void
  /** Another node wants this phone's current state: the holder publishes it. */
  wanted(phoneId: string): void
  /** The listening was (re)established: what was heard before may have been missed since. */
  resubscribed(): void
}

export interface PairingRelay {
  /** Sends the phone's state to the other nodes, soon and in order; never waits on the database. */
  publish(phoneId: string, state: PairingState): void
  /** The extras last heard from the node holding the phone; null before any. */
  heard(phoneId: string): PairingExtras | null
  /** Asks the node holding the phone to publish its current state. */
  want(phoneId: string): void
  /** What was heard of the phone is no longer needed (this node holds it now, or it was deleted). */
  forget(phoneId: string): void
  start(handlers: PairingRelayHandlers): Promise<void>
  stop(): Promise<void>
}

/** One process has every phone's socket: nothing to relay. */
export function localPairingRelay(): PairingRelay {
  return {
    publish() {},
    heard: () => null,
    want() {},
    forget() {},
    async start() {},
    async stop() {},
  }
}

interface Published extends PairingExtras {
  nodeId: string
  phoneId: string
}

/** The payload of a state: JSON, without the QR and code when they would make it too big. */
export function encodePairing(nodeId: string, phoneId: string, state: PairingState): string {
  const published: Published = { nodeId, phoneId, connectionStatus: state.connectionStatus, qr: state.qr, pairingCode: state.pairingCode, waVersion: state.waVersion }
  const payload = JSON.stringify(published)
  if (Buffer.byteLength(payload) <= MAX_PAIRING_PAYLOAD_BYTES) return payload
  return JSON.stringify({ ...published, qr: null, pairingCode: null, waVersion: null })
}

const nullableString = (value: unknown): value is string | null => value === null || typeof value === "string"

/** A payload another node published, or null when it is not one (never trusted blindly: it crossed the database). */
export function decodePairing(payload: string): Published | null {
  let value: Record<string, unknown>
  try {
    value = JSON.parse(payload) as Record<string, unknown>
  } catch {
    return null
  }
  if (typeof value !== "object" || value === null) return null
  const { nodeId, phoneId, connectionStatus, qr, pairingCode, waVersion } = value
  if (typeof nodeId !== "string" || typeof phoneId !== "string") return null
  if (!CONNECTION_STATUSES.includes(connectionStatus as ConnectionStatus)) return null
  if (!nullableString(qr) || !nullableString(pairingCode) || !nullableString(waVersion)) return null
  return { nodeId, phoneId, connectionStatus: connectionStatus as ConnectionStatus, qr, pairingCode, waVersion }
}

/** The relay of a node sharing the database with others. */
export function createPairingRelay(deps: { store: Store; clock: Clock; logger: Logger; nodeId: string }): PairingRelay {
  const { store, clock, logger, nodeId } = deps
  const heard = new Map<string, PairingExtras>()
  /** States and wants not yet sent: the latest state per phone, sent in one transaction. */
  const states = new Map<string, string>()
  const wants = new Set<string>()
  let sending: Promise<void> | null = null
  let failing = false
  let unlisten: (() => Promise<void>)[] = []
  let stopped = false

  /** Sends what is pending, one transaction at a time, so states reach the other nodes in the order they were made. */
  async function send(): Promise<void> {
    while (states.size > 0 || wants.size > 0) {
      const batch = [...states.values()]
      const asked = [...wants]
      states.clear()
      wants.clear()
      try {
        await store.write(async (_q, tx) => {
          for (const payload of batch) tx.notify("pairing", payload)
          for (const phoneId of asked) tx.notify("pairing_wanted", phoneId)
        })
        failing = false
      } catch (err) {
        // A live page elsewhere shows the state from the phone's row until the next change.
        if (!failing) logger.warn("relaying pairing states to the other nodes failed; their live pages miss QR codes until the database answers", { err })
        failing = true
      }
    }
    sending = null
  }
  // After stop the store is being closed: nothing more is sent.
  const soon = () => void (stopped || (sending ??= send()))

  function onState(payload: string, handlers: PairingRelayHandlers): void {
    const published = decodePairing(payload)
    if (!published || published.nodeId === nodeId) return
    const { connectionStatus, qr, pairingCode, waVersion } = published
    heard.set(published.phoneId, { connectionStatus, qr, pairingCode, waVersion })
    handlers.heard(published.phoneId)
  }

  return {
    publish(phoneId, state) {
      states.set(phoneId, encodePairing(nodeId, phoneId, state))
      soon()
    },
    heard: (phoneId) => heard.get(phoneId) ?? null,
    want(phoneId) {
      wants.add(phoneId)
      soon()
    },
    forget: (phoneId) => void heard.delete(phoneId),
    async start(handlers) {
      const resubscribed = () => {
        heard.clear()
        handlers.resubscribed()
      }
      unlisten = [
        await store.listen("pairing", (payload) => onState(payload, handlers), resubscribed),
        await store.listen("pairing_wanted", (phoneId) => handlers.wanted(phoneId)),
      ]
    },
    async stop() {
      await Promise.all(unlisten.splice(0).map((off) => off()))
      // A database that stopped answering must not hold the shutdown: the states are hints.
      if (sending) await withDeadline(clock, STOP_WAIT_MS, "the last pairing states were not sent in time", sending).catch(() => {})
      stopped = true
    },
  }
}
