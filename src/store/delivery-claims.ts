import type { PendingDelivery } from "./webhooks"

/** A delivery claimed by a node, with what its attempt posts and until when the claim holds. */
export interface ClaimedDelivery extends PendingDelivery {
  /** The claim holds up to and including this instant; after it, any node may claim the delivery. */
  claimExpiresAtMs: number
}

/** Earliest due first, then by id: the order both stores return claims in. */
export function byDueThenId(a: ClaimedDelivery, b: ClaimedDelivery): number {
  const due = (a.delivery.nextAttemptAtMs ?? 0) - (b.delivery.nextAttemptAtMs ?? 0)
  return due !== 0 ? due : a.delivery.id < b.delivery.id ? -1 : a.delivery.id > b.delivery.id ? 1 : 0
}
