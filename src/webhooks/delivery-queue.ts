/** A delivery waiting for, or holding, an attempt slot. */
export interface QueuedDelivery {
  deliveryId: string
  endpointId: string
}

/**
 * The dispatcher's queue: due deliveries wait per endpoint, first in first out, and are let out
 * in waves that fill the free attempt slots, never more than `maxInFlight` in all nor
 * `maxInFlightPerEndpoint` to one endpoint (so one slow receiver cannot take every slot). A
 * delivery is in the queue or in flight at most once. Memory only: what it holds is pending in
 * the database, claimed by this node, and claimed again by any node once released or expired.
 */
export interface DeliveryQueue {
  /** Queues a due delivery; false when it is already queued or in flight. */
  add(deliveryId: string, endpointId: string): boolean
  /** Whether the delivery is queued or in flight. */
  has(deliveryId: string): boolean
  /** Takes as many queued deliveries as there are free slots, and marks them in flight. */
  takeWave(): QueuedDelivery[]
  /** Gives back a delivery's slot once its attempt is over (recorded, skipped or abandoned). */
  release(delivery: QueuedDelivery): void
  /** Attempts in flight now. */
  readonly inFlight: number
  /** Deliveries queued or in flight now. */
  readonly size: number
  /** Attempts in flight to one endpoint. */
  inFlightTo(endpointId: string): number
  /** The endpoints with at least `count` deliveries queued or in flight. */
  endpointsHolding(count: number): string[]
}

export function createDeliveryQueue(limits: { maxInFlight: number; maxInFlightPerEndpoint: number }): DeliveryQueue {
  // Per-endpoint FIFO queues with a read index: Array.shift() is O(n), which turns a burst of
  // tens of thousands of due deliveries into quadratic work.
  const queues = new Map<string, { items: string[]; head: number }>()
  const inFlightByEndpoint = new Map<string, number>()
  const queued = new Set<string>()
  const running = new Set<string>()
  let inFlight = 0

  function take(endpointId: string, queue: { items: string[]; head: number }, wave: QueuedDelivery[]): void {
    let endpointInFlight = inFlightByEndpoint.get(endpointId) ?? 0
    while (queue.head < queue.items.length && inFlight < limits.maxInFlight && endpointInFlight < limits.maxInFlightPerEndpoint) {
      const deliveryId = queue.items[queue.head++]!
      queued.delete(deliveryId)
      running.add(deliveryId)
      inFlight++
      endpointInFlight++
      wave.push({ deliveryId, endpointId })
    }
    if (endpointInFlight > 0) inFlightByEndpoint.set(endpointId, endpointInFlight)
    if (queue.head >= queue.items.length) queues.delete(endpointId)
  }

  return {
    add(deliveryId, endpointId) {
      if (queued.has(deliveryId) || running.has(deliveryId)) return false
      queued.add(deliveryId)
      const queue = queues.get(endpointId)
      if (queue) queue.items.push(deliveryId)
      else queues.set(endpointId, { items: [deliveryId], head: 0 })
      return true
    },
    has: (deliveryId) => queued.has(deliveryId) || running.has(deliveryId),
    takeWave() {
      const wave: QueuedDelivery[] = []
      for (const [endpointId, queue] of queues) {
        if (inFlight >= limits.maxInFlight) break
        take(endpointId, queue, wave)
      }
      return wave
    },
    release({ deliveryId, endpointId }) {
      if (!running.delete(deliveryId)) return
      inFlight--
      const left = (inFlightByEndpoint.get(endpointId) ?? 1) - 1
      if (left <= 0) inFlightByEndpoint.delete(endpointId)
      else inFlightByEndpoint.set(endpointId, left)
    },
    get inFlight() {
      return inFlight
    },
    get size() {
      return queued.size + running.size
    },
    inFlightTo: (endpointId) => inFlightByEndpoint.get(endpointId) ?? 0,
    endpointsHolding(count) {
      const ids = new Set<string>()
      for (const [endpointId, n] of inFlightByEndpoint) {
        const queue = queues.get(endpointId)
        if (n + (queue ? queue.items.length - queue.head : 0) >= count) ids.add(endpointId)
      }
      for (const [endpointId, queue] of queues) if (queue.items.length - queue.head >= count) ids.add(endpointId)
      return [...ids]
    },
  }
}
