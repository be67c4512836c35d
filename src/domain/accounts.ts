import { errors } from "../lib/errors"
import {
  countActiveKeys,
  countPhones,
  findAccount,
  insertAccount,
  listAccounts as listAccountRows,
  updateAccount as updateAccountRow,
  type AccountRow,
  type SubscriptionStatus,
} from "../store/accounts"
import type { Environment } from "../store/api-keys"
import { countMessages } from "../store/messages"
import type { DomainContext } from "./context"

/** An account with the counts the spec's `stats` reports. */
export interface AccountProfile {
  account: AccountRow
  stats: { apiKeys: number; phoneNumbers: number; messages: number }
}

/** What the operator may set on an account. */
export interface AccountPatch {
  name?: string
  email?: string
  subscriptionStatus?: SubscriptionStatus
  rateLimitPerMinute?: number | null
}

/** Builds a new account row. */
export function newAccount(ctx: DomainContext, name: string, email: string): AccountRow {
  const nowMs = ctx.clock.nowMs()
  return {
    id: ctx.ids.newId("acc"),
    name: name.trim(),
    email: email.trim(),
    subscriptionStatus: "active",
    rateLimitPerMinute: null,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
  }
}

/** Creates an account with an active subscription and the default rate limit. */
export async function createAccount(ctx: DomainContext, name: string, email: string): Promise<AccountRow> {
  const row = newAccount(ctx, name, email)
  await ctx.writer.write((db) => insertAccount(db, row))
  return row
}

/** Changes an account's name, e-mail, subscription or rate limit. */
export async function updateAccount(ctx: DomainContext, accountId: string, patch: AccountPatch): Promise<AccountRow> {
  const current = findAccount(ctx.db, accountId)
  if (!current) throw errors.accountNotFound(accountId)
  const next: AccountRow = {
    ...current,
    name: patch.name?.trim() ?? current.name,
    email: patch.email?.trim() ?? current.email,
    subscriptionStatus: patch.subscriptionStatus ?? current.subscriptionStatus,
    rateLimitPerMinute: patch.rateLimitPerMinute === undefined ? current.rateLimitPerMinute : patch.rateLimitPerMinute,
    updatedAtMs: ctx.clock.nowMs(),
  }
  await ctx.writer.write((db) => updateAccountRow(db, next))
  return next
}

/** Every account. */
export function listAccounts(ctx: DomainContext): AccountRow[] {
  return listAccountRows(ctx.db)
}

/** One account or 404. */
export function getAccount(ctx: DomainContext, accountId: string): AccountRow {
  const row = findAccount(ctx.db, accountId)
  if (!row) throw errors.accountNotFound(accountId)
  return row
}

/**
 * The account with its stats (API-DECISIONS §9): active keys, phones, and outbound messages in
 * `env`, or in both environments when `env` is omitted (the operator's view).
 */
export function accountProfile(ctx: DomainContext, accountId: string, env?: Environment): AccountProfile {
  const account = getAccount(ctx, accountId)
  return {
    account,
    stats: {
      apiKeys: countActiveKeys(ctx.db, accountId, ctx.clock.nowMs()),
      phoneNumbers: countPhones(ctx.db, accountId),
      messages: countMessages(ctx.db, accountId, env),
    },
  }
}

/** The per-key limit that applies to an account's keys. */
export function effectiveRateLimit(ctx: DomainContext, account: AccountRow): number {
  return account.rateLimitPerMinute ?? ctx.config.rateLimitPerMinute
}
