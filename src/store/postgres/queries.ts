import type { SQL } from "bun"
import { pgAccountsQueries } from "./accounts"
import { pgApiKeysQueries } from "./api-keys"
import { pgDashboardSessionsQueries } from "./dashboard-sessions"
import { pgDeliveryClaimQueries } from "./delivery-claims"
import { pgInboundQueries } from "./inbound"
import { pgLeaseQueries } from "./leases"
import { pgMessageActionsQueries } from "./message-actions"
import { pgMessagePartsQueries } from "./message-parts"
import { pgMessagesQueries } from "./messages"
import { pgPhonesQueries } from "./phones"
import { pgRateBucketsQueries } from "./rate-buckets"
import { pgRepliesQueries } from "./replies"
import { pgSendJobsQueries } from "./send-jobs"
import { pgSettingsQueries } from "./settings"
import { pgStatsQueries } from "./stats"
import { pgUsageQueries } from "./usage"
import { pgWaAuthQueries } from "./wa-auth"
import { pgWaContactsQueries } from "./wa-contacts"
import { pgCallsQueries } from "./calls"
import { pgSandboxGroupsQueries } from "./sandbox-groups"
import { pgSandboxBlocksQueries } from "./sandbox-blocks"
import { pgLabelsQueries } from "./labels"
import { pgWaResendQueries } from "./wa-resend"
import { pgMessageSecretsQueries } from "./message-secrets"
import { pgPollsQueries } from "./polls"
import { pgChatsQueries } from "./chats"
import { pgHistorySettingsQueries } from "./history-settings"
import { pgWebhooksQueries } from "./webhooks"
import { pgEventStreamsQueries } from "./event-streams"
import { pgAmqpPublisherQueries } from "./amqp-publisher"

/*
 * The PostgreSQL query groups, merged into one flat set of methods like the SQLite store's
 * (src/store/sqlite/store.ts). Each group is a module src/store/postgres/<group>.ts exporting a
 * function of the SQL handle (the pool, or the current transaction) that returns the group's
 * interface from src/store/store.ts. A group joins the store by one line in PG_QUERY_GROUPS; the
 * store's type follows the list, so a group that is absent is absent from the type too.
 */

const PG_QUERY_GROUPS = [
  pgAccountsQueries,
  pgApiKeysQueries,
  pgDashboardSessionsQueries,
  pgInboundQueries,
  pgMessageActionsQueries,
  pgMessagePartsQueries,
  pgMessagesQueries,
  pgPhonesQueries,
  pgRepliesQueries,
  pgSendJobsQueries,
  pgSettingsQueries,
  pgStatsQueries,
  pgUsageQueries,
  pgWaAuthQueries,
  pgWaResendQueries,
  pgMessageSecretsQueries,
  pgWebhooksQueries,
  pgDeliveryClaimQueries,
  pgLeaseQueries,
  pgRateBucketsQueries,
  pgWaContactsQueries,
  pgPollsQueries,
  pgCallsQueries,
  pgSandboxGroupsQueries,
  pgChatsQueries,
  pgSandboxBlocksQueries,
  pgHistorySettingsQueries,
  pgLabelsQueries,
  pgEventStreamsQueries,
  pgAmqpPublisherQueries,
] as const

type Group = (typeof PG_QUERY_GROUPS)[number]
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never

/** The queries the PostgreSQL store implements: the intersection of its groups' interfaces. */
export type PgQueries = [Group] extends [never] ? {} : UnionToIntersection<ReturnType<Group>>

/** Every PostgreSQL query, run on `sql` (the pool, or a transaction or savepoint). */
export function queriesOn(sql: SQL): PgQueries {
  const queries = {} as Record<string, unknown>
  for (const group of PG_QUERY_GROUPS as readonly ((sql: SQL) => object)[]) Object.assign(queries, group(sql))
  return queries as unknown as PgQueries
}
