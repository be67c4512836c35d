import { errors } from "../lib/errors"
import { randomBase62, sha256Hex } from "../lib/secrets"
import { type AccountRow } from "../store/accounts"
import { type ApiKeyRow, type Environment } from "../store/api-keys"
import type { DomainContext } from "./context"
import { ALL_SCOPES, isScope, type Scope } from "./scopes"

/** Who made an authenticated request. */
export interface Principal {
  keyId: string
  accountId: string
  env: Environment
  scopes: string[]
  account: AccountRow
}

const KEY_PATTERN = /^sk_(test|live)_[0-9A-Za-z]{43}$/

/** What the operator asks for when creating a key. */
export interface CreateKeyCommand {
  accountId: string
  env: Environment
  scopes: string[]
  name?: string
  expiresAtMs?: number | null
}

/** Builds the key record; the plaintext key is returned once and never stored. */
export function newApiKey(ctx: DomainContext, cmd: CreateKeyCommand): { row: ApiKeyRow; key: string } {
  const unknown = cmd.scopes.filter((s) => !isScope(s))
  if (unknown.length > 0) {
    const named = unknown.length === 1 ? `an unknown scope: ${unknown[0]}` : `unknown scopes: ${unknown.join(", ")}`
    throw errors.validation([`scopes contains ${named}; the valid scopes are ${ALL_SCOPES.join(", ")}`])
  }
  if (cmd.scopes.length === 0) throw errors.validation(["scopes must name at least one scope"])
  const nowMs = ctx.clock.nowMs()
  if (cmd.expiresAtMs != null && cmd.expiresAtMs <= nowMs) throw errors.validation(["expiresAt must be in the future"])
  const key = `sk_${cmd.env}_${randomBase62(32)}`
  const row: ApiKeyRow = {
    id: ctx.ids.newId("key"),
    accountId: cmd.accountId,
    env: cmd.env,
    keyHash: sha256Hex(key),
    prefix: key.slice(0, `sk_${cmd.env}_`.length + 4),
    last4: key.slice(-4),
    name: cmd.name?.trim() || `${cmd.env} key`,
    scopes: [...new Set(cmd.scopes as Scope[])],
    createdAtMs: nowMs,
    lastUsedAtMs: null,
    expiresAtMs: cmd.expiresAtMs ?? null,
    revokedAtMs: null,
  }
  return { row, key }
}

/** Creates an API key for an existing account. */
export async function createApiKey(ctx: DomainContext, cmd: CreateKeyCommand): Promise<{ row: ApiKeyRow; key: string }> {
  if (!await ctx.store.findAccount(cmd.accountId)) throw errors.accountNotFound(cmd.accountId)
  const created = newApiKey(ctx, cmd)
  await ctx.store.write(async (q) => await q.insertApiKey(created.row), { changed: ["api_keys"] })
  return created
}

/** Every key record of an account. */
export async function listApiKeys(ctx: DomainContext, accountId: string): Promise<ApiKeyRow[]> {
  if (!await ctx.store.findAccount(accountId)) throw errors.accountNotFound(accountId)
  return await ctx.store.listApiKeys(accountId)
}

/** Revokes a key; it is refused from its next request on. */
export async function revokeApiKey(ctx: DomainContext, keyId: string): Promise<ApiKeyRow> {
  if (!await ctx.store.findApiKey(keyId)) throw errors.apiKeyNotFound(keyId)
  await ctx.store.write(async (q) => await q.revokeApiKey(keyId, ctx.clock.nowMs()), { changed: ["api_keys"] })
  return (await ctx.store.findApiKey(keyId))!
}

/** True while a key works: not revoked and not past its expiry. */
export function isActiveKey(row: Pick<ApiKeyRow, "revokedAtMs" | "expiresAtMs">, nowMs: number): boolean {
  return row.revokedAtMs === null && (row.expiresAtMs === null || row.expiresAtMs > nowMs)
}

/** Keys remembered by hash; bounded so a flood of distinct valid keys cannot grow it without end. */
const PRINCIPAL_CACHE_ENTRIES = 10_000

/** An authenticated key remembered by its hash, valid while the database version is unchanged. */
export interface CachedPrincipal {
  version: string
  principal: Principal
  expiresAtMs: number | null
}

/**
 * Resolves a bearer key to its principal, or null when it is malformed, unknown, revoked or
 * expired. The environment comes from the stored record: a key whose prefix was edited hashes
 * to nothing we know. The record is cached per key hash until the database changes (any commit
 * by another process, such as `wagate keys revoke`, or a change through this one), so a
 * revoked key is still refused on its next request.
 */
export async function authenticateApiKey(ctx: DomainContext, presented: string): Promise<Principal | null> {
  if (!KEY_PATTERN.test(presented)) return null
  const hash = sha256Hex(presented)
  const cache = ctx.principalCache
  const version = ctx.store.changeVersion()
  const nowMs = ctx.clock.nowMs()
  const cached = cache.get(hash)
  if (cached && cached.version === version) {
    return cached.expiresAtMs !== null && cached.expiresAtMs <= nowMs ? null : cached.principal
  }
  const row = await ctx.store.findApiKeyByHash(hash)
  if (!row || !isActiveKey(row, nowMs)) return null
  const account = await ctx.store.findAccount(row.accountId)
  if (!account) return null
  const principal = { keyId: row.id, accountId: row.accountId, env: row.env, scopes: row.scopes, account }
  if (cache.size >= PRINCIPAL_CACHE_ENTRIES) cache.clear()
  cache.set(hash, { version, principal, expiresAtMs: row.expiresAtMs })
  return principal
}

/**
 * The principal of a stored key, for the operator acting as that key (the dashboard's sandbox
 * sends as one of the account's test keys, so the message is recorded under it). Refused, like
 * the key itself would be, when it is revoked or expired.
 */
export async function principalOfKey(ctx: DomainContext, keyId: string): Promise<Principal> {
  const row = await ctx.store.findApiKey(keyId)
  if (!row) throw errors.apiKeyNotFound(keyId)
  if (!isActiveKey(row, ctx.clock.nowMs())) {
    throw errors.validation([`API key ${keyId} is revoked or expired`])
  }
  const account = await ctx.store.findAccount(row.accountId)
  if (!account) throw errors.accountNotFound(row.accountId)
  return { keyId: row.id, accountId: row.accountId, env: row.env, scopes: row.scopes, account }
}
