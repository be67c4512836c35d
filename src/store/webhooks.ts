import type { Environment } from "./api-keys"

/** A webhook endpoint row (the secret stays in the store and the signer). */
export interface EndpointRow {
  id: string
  accountId: string
  env: Environment
  url: string
  /** Event names, or ["*"] for every event. */
  events: string[]
  enabled: boolean
  secret: string
  previousSecret: string | null
  previousSecretExpiresAtMs: number | null
  createdAtMs: number
  updatedAtMs: number
}

/** An event of the outbox. */
export interface EventRow {
  id: string
  accountId: string
  env: Environment
  type: string
  body: string
  occurredAtMs: number
}

export type DeliveryStatus = "pending" | "succeeded" | "failed"

/**
 * A window of an endpoint's delivery log: newest first, starting after `before`, optionally only
 * one status and only events of the given types (an empty list matches nothing).
 */
export interface DeliveryWindowQuery {
  endpointId: string
  before: { createdAtMs: number; id: string } | null
  limit: number
  status?: DeliveryStatus
  eventTypes?: readonly string[]
}

/** The delivery of one event to one endpoint, across its attempts. */
export interface DeliveryRow {
  id: string
  eventId: string
  endpointId: string
  status: DeliveryStatus
  attemptCount: number
  firstAttemptAtMs: number | null
  nextAttemptAtMs: number | null
  lastStatusCode: number | null
  lastError: string | null
  resentFrom: string | null
  createdAtMs: number
  updatedAtMs: number
}

/** A pending delivery with what an attempt of it posts: its event's type and stored body. */
export interface PendingDelivery {
  delivery: DeliveryRow
  eventType: string
  body: string
}

/** One recorded attempt. */
export interface AttemptRow {
  deliveryId: string
  attemptNumber: number
  attemptedAtMs: number
  statusCode: number | null
  error: string | null
  latencyMs: number
  responseBody: string | null
}

/** A delivery's progress after an attempt: the fields an attempt changes. */
export type DeliveryProgress = Pick<
  DeliveryRow,
  "id" | "status" | "attemptCount" | "firstAttemptAtMs" | "nextAttemptAtMs" | "lastStatusCode" | "lastError" | "updatedAtMs"
>

/** What `scanEventsMentioning` looks for (store.ts). */
export interface EventScan {
  accountId: string
  env: Environment
  types: readonly string[]
  text: string
  fromMs: number
  scanLimit: number
}
