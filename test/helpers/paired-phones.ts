import type { PhoneRow } from "../../src/store/phones"
import type { Store } from "../../src/store/store"

/**
 * Marks phones paired and offline (`disconnected`), as a finished pairing leaves them: only
 * phones that need a connection are leased (src/store/leases.ts, NEEDS_CONNECTION), so tests that
 * claim seeded phones mark them first.
 */
export async function markPaired(store: Pick<Store, "updatePhoneConnection">, phones: readonly PhoneRow[]): Promise<void> {
  for (const p of phones) {
    await store.updatePhoneConnection({ id: p.id, connectionStatus: "disconnected", lastConnectedAtMs: p.lastConnectedAtMs, lastDisconnectedAtMs: p.lastDisconnectedAtMs, updatedAtMs: p.updatedAtMs }, false)
  }
}
