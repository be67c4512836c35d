import { errors } from "../lib/errors"
import { type AccountRow, type SubscriptionStatus } from "../store/accounts"
import type { Environment } from "../lib/vocabulary"
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

const EMAIL = /^[^@\s]+@[^@\s]+$/

/** The rules for an account's name, shared by the admin API and the CLI. */
function checkedName(name: string): string {
  const trimmed = name.trim()
  if (trimmed.length < 1 || trimmed.length > 200) throw errors.validation(["name must be 1–200 characters"])
  return trimmed
}

/** The rules for an account's e-mail, shared by the admin API and the CLI. */
function checkedEmail(email: string): string {
  const trimmed = email.trim()
  if (trimmed.length > 320 || !EMAIL.test(trimmed)) throw errors.validation(["email must be an e-mail address"])
  return trimmed
}

/** Builds a new account row. */
export function newAccount(ctx: DomainContext, name: string, email: string): AccountRow {
  const nowMs = ctx.clock.nowMs()
  return {
    id: ctx.ids.newId("acc"),
    name: checkedName(name),
    email: checkedEmail(email),
    subscriptionStatus: "active",
    rateLimitPerMinute: null,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
  }
}

/** Creates an account with an active subscription and the default rate limit. */
export async function createAccount(ctx: DomainContext, name: string, email: string): Promise<AccountRow> {
  const row = newAccount(ctx, name, email)
  await ctx.store.write(async (q) => await q.insertAccount(row), { changed: ["accounts"] })
  return row
}

/** Changes an account's name, e-mail, subscription or rate limit. */
export async function updateAccount(ctx: DomainContext, accountId: string, patch: AccountPatch): Promise<AccountRow> {
  const current = await ctx.store.findAccount(accountId)
  if (!current) throw errors.accountNotFound(accountId)
  const next: AccountRow = {
    ...current,
    name: patch.name === undefined ? current.name : checkedName(patch.name),
    email: patch.email === undefined ? current.email : checkedEmail(patch.email),
    subscriptionStatus: patch.subscriptionStatus ?? current.subscriptionStatus,
    rateLimitPerMinute: patch.rateLimitPerMinute === undefined ? current.rateLimitPerMinute : patch.rateLimitPerMinute,
    updatedAtMs: ctx.clock.nowMs(),
  }
  await ctx.store.write(async (q) => await q.updateAccount(next), { changed: ["accounts"] })
  return next
}

/** Every account. */
export async function listAccounts(ctx: DomainContext): Promise<AccountRow[]> {
  return await ctx.store.listAccounts()
}

/** One account or 404. */
export async function getAccount(ctx: DomainContext, accountId: string): Promise<AccountRow> {
  const row = await ctx.store.findAccount(accountId)
  if (!row) throw errors.accountNotFound(accountId)
  return row
}

/**
 * The account with its stats (docs/decisions.md § "Phones, groups, account and usage"): active keys, phones, and outbound messages in
 * `env`, or in both environments when `env` is omitted (the operator's view).
 */
export async function accountProfile(ctx: DomainContext, accountId: string, env?: Environment): Promise<AccountProfile> {
  const account = await getAccount(ctx, accountId)
  return {
    account,
    stats: {
      apiKeys: await ctx.store.countActiveKeys(accountId, ctx.clock.nowMs()),
      phoneNumbers: await ctx.store.countPhones(accountId),
      messages: await ctx.store.countMessages(accountId, env),
    },
  }
}

/** The per-key limit that applies to an account's keys. */
export function effectiveRateLimit(ctx: DomainContext, account: AccountRow): number {
  return account.rateLimitPerMinute ?? ctx.config.rateLimitPerMinute
}
