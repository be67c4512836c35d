import type { PhoneRow } from "../store/phones"
import type { PairingState } from "./pairing-state"

/**
 * The listeners of this process to pairing-state changes (the dashboard's live pages, the admin
 * pairing stream, `serve`'s QR prompt), per phone and for every phone. Changes reach them from
 * this node's sessions and, with several nodes, from the node holding the phone
 * (pairing-relay.ts).
 */
export interface PairingListeners {
  subscribe(phoneId: string, listener: (state: PairingState) => void): () => void
  /** `relayed` is true for a change heard from the node holding the phone, false for one made here. */
  subscribeAll(listener: AllPhonesListener): () => void
  /** Tells every listener of the phone, and every listener of all phones, its new state. */
  emit(phone: PhoneRow, state: PairingState, relayed: boolean): void
  /** The phones someone here listens to. */
  watched(): string[]
  /** The phone was deleted: its listeners hear nothing more. */
  drop(phoneId: string): void
}

export type AllPhonesListener = (phone: PhoneRow, state: PairingState, relayed: boolean) => void

export function createPairingListeners(): PairingListeners {
  const perPhone = new Map<string, Set<(state: PairingState) => void>>()
  const everyPhone = new Set<AllPhonesListener>()
  return {
    subscribe(phoneId, listener) {
      let listeners = perPhone.get(phoneId)
      if (!listeners) perPhone.set(phoneId, (listeners = new Set()))
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
        if (listeners.size === 0 && perPhone.get(phoneId) === listeners) perPhone.delete(phoneId)
      }
    },
    subscribeAll(listener) {
      everyPhone.add(listener)
      return () => everyPhone.delete(listener)
    },
    emit(phone, state, relayed) {
      for (const listener of perPhone.get(phone.id) ?? []) listener(state)
      for (const listener of everyPhone) listener(phone, state, relayed)
    },
    watched: () => [...perPhone.keys()],
    drop: (phoneId) => void perPhone.delete(phoneId),
  }
}
