import { toIso, toIsoOrNull } from "../lib/time"
import type { ApiKeyRow } from "../store/api-keys"
import type { EndpointRow } from "../store/webhooks"
import type { PhoneRow } from "../store/phones"
import type { AccountProfile } from "./accounts"
import { lastErrorOf, type LastError } from "./connection-errors"
import { boundedOutsideTextOrNull } from "../lib/outside-text"
import type { DeliveryWithAttempts } from "./webhook-endpoints"

/*
 * How stored records look to the outside: the API's field names (`environment`, not `env`) and
 * ISO 8601 timestamps (`createdAt`, not `createdAtMs`). The HTTP models declare these shapes as
 * TypeBox schemas for validation and OpenAPI and map with these functions; the CLI's `--json`
 * output uses the same functions, so a script sees one vocabulary whichever way it asks.
 */

/** An account as the operator sees it; stats count messages of both environments. */
export function adminAccountView(profile: AccountProfile) {
  const a = profile.account
  return {
    accountId: a.id,
    name: a.name,
    email: a.email,
    subscriptionStatus: a.subscriptionStatus,
    stats: profile.stats,
    rateLimitPerMinute: a.rateLimitPerMinute,
    createdAt: toIso(a.createdAtMs),
    updatedAt: toIso(a.updatedAtMs),
  }
}

/** A key record; never the key or its hash. */
export function apiKeyView(row: ApiKeyRow) {
  return {
    id: row.id,
    accountId: row.accountId,
    name: row.name,
    environment: row.env,
    scopes: row.scopes,
    prefix: row.prefix,
    last4: row.last4,
    createdAt: toIso(row.createdAtMs),
    lastUsedAt: toIsoOrNull(row.lastUsedAtMs),
    expiresAt: toIsoOrNull(row.expiresAtMs),
    revokedAt: toIsoOrNull(row.revokedAtMs),
  }
}

/** A sender phone. */
export function phoneView(row: PhoneRow) {
  return {
    id: row.id,
    phoneNumber: row.phoneNumber,
    displayName: row.displayName,
    connectionStatus: row.connectionStatus,
    lastConnectedAt: toIsoOrNull(row.lastConnectedAtMs),
    lastDisconnectedAt: toIsoOrNull(row.lastDisconnectedAtMs),
    createdAt: toIso(row.createdAtMs),
    updatedAt: toIso(row.updatedAtMs),
  }
}

/** Why a phone's last connect or pairing attempt failed, or null. */
export function lastErrorView(error: LastError | null) {
  return error ? { code: error.code, message: error.message, at: toIso(error.atMs) } : null
}

/** A sender phone as the operator sees it: with the reason its last attempt failed. */
export function adminPhoneView(row: PhoneRow) {
  return { ...phoneView(row), lastError: lastErrorView(lastErrorOf(row)) }
}

/** A webhook endpoint without its secrets. */
export function webhookEndpointView(row: EndpointRow) {
  return {
    id: row.id,
    accountId: row.accountId,
    environment: row.env,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    previousSecretExpiresAt: toIsoOrNull(row.previousSecretExpiresAtMs),
    createdAt: toIso(row.createdAtMs),
    updatedAt: toIso(row.updatedAtMs),
  }
}

/** A webhook delivery with its attempts; `nextAttemptAt` only while one is still due. */
export function webhookDeliveryView(d: DeliveryWithAttempts) {
  return {
    id: d.delivery.id,
    eventId: d.delivery.eventId,
    event: d.eventType,
    endpointId: d.delivery.endpointId,
    status: d.delivery.status,
    attemptCount: d.delivery.attemptCount,
    nextAttemptAt: d.delivery.status === "pending" ? toIsoOrNull(d.delivery.nextAttemptAtMs) : null,
    lastStatusCode: d.delivery.lastStatusCode,
    lastError: boundedOutsideTextOrNull(d.delivery.lastError),
    resentFrom: d.delivery.resentFrom,
    createdAt: toIso(d.delivery.createdAtMs),
    attempts: d.attempts.map((a) => ({
      attempt: a.attemptNumber,
      attemptedAt: toIso(a.attemptedAtMs),
      statusCode: a.statusCode,
      error: boundedOutsideTextOrNull(a.error),
      latencyMs: a.latencyMs,
      responseBody: boundedOutsideTextOrNull(a.responseBody),
    })),
  }
}
