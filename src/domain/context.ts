import type { Clock } from "../lib/clock"
import type { IdGenerator } from "../lib/ids"
import type { Logger } from "../lib/logger"
import type { CidrList } from "../lib/net-policy"
import type { CachedPrincipal } from "./api-keys"
import type { Store } from "../store/store"
import type { EventOutbox } from "../webhooks/outbox"

/** Settings the business rules read. */
export interface DomainConfig {
  rateLimitPerMinute: number
  sandboxDeliveredMs: number
  sandboxReadMs: number
  outboundAllowCidrs: CidrList
  /** WAGATE_ADMIN_TOKEN; when set it replaces the stored admin token. */
  adminToken: string | null
  /** WAGATE_NODE_ID: this node's name among nodes sharing a database. */
  nodeId: string
}

/**
 * What every domain function needs, passed in by the composition root. Every read and write
 * goes through `store`, the database's seam (src/store/store.ts), whichever database it is.
 */
export interface DomainContext {
  store: Store
  clock: Clock
  ids: IdGenerator
  logger: Logger
  config: DomainConfig
  /** Records webhook events in the transaction of the change that caused them. */
  events: EventOutbox
  /** Authenticated keys by SHA-256, so a request costs no key lookup while nothing changed. */
  principalCache: Map<string, CachedPrincipal>
}
