import { errors } from "../lib/errors"
import { EVENT_GROUPS } from "../lib/event-filter"
import type { Environment, Page } from "../lib/vocabulary"
import { type AttemptRow, type DeliveryRow, type DeliveryStatus, type EndpointRow } from "../store/webhooks"
import { newSigningSecret } from "../webhooks/signer"
import type { DomainContext } from "./context"
import { EVENT_NAMES } from "./event-catalogue"
import { checkWebhookUrl } from "./webhook-url"

/** How long a rotated-out secret keeps signing beside the new one (docs/decisions.md § "Webhooks"). */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000
export { WEBHOOK_URL_MAX_LENGTH } from "./webhook-url"

/** What an endpoint's event list must be: names of the catalogue, or groups that take every event of one prefix. */
export const EVENTS_RULE = `events must be ["*"] or a non-empty list of: ${[...EVENT_NAMES, ...EVENT_GROUPS].join(", ")}`

function eventsProblem(events: readonly string[]): string | null {
  if (events.length === 1 && events[0] === "*") return null
  const known = (e: string) => (EVENT_NAMES as readonly string[]).includes(e) || EVENT_GROUPS.includes(e)
  if (events.length === 0 || !events.every(known)) return EVENTS_RULE
  return null
}

/**
 * Checks a URL and an event list together, so every problem is reported at once (docs/decisions.md
 * § "Errors and validation"); returns the URL normalised and the events deduplicated.
 */
function checkInput(input: { url?: string; events?: readonly string[] }): { url?: string; events?: string[] } {
  const url = input.url === undefined ? null : checkWebhookUrl(input.url)
  const problems = [url?.problem ?? null, input.events === undefined ? null : eventsProblem(input.events)].filter((p): p is string => p !== null)
  if (problems.length > 0) throw errors.validation(problems)
  return {
    url: url?.href ?? undefined,
    events: input.events === undefined ? undefined : input.events.includes("*") ? ["*"] : [...new Set(input.events)],
  }
}

/** One endpoint, or 404. */
export async function getEndpoint(ctx: DomainContext, id: string): Promise<EndpointRow> {
  const row = await ctx.store.findEndpoint(id)
  if (!row) throw errors.webhookNotFound(id)
  return row
}

/** Every endpoint of an account. */
export async function listAccountEndpoints(ctx: DomainContext, accountId: string): Promise<EndpointRow[]> {
  if (!await ctx.store.findAccount(accountId)) throw errors.accountNotFound(accountId)
  return await ctx.store.listEndpoints(accountId)
}

/** Creates an endpoint; the returned row carries the secret, to show once. */
export async function createEndpoint(
  ctx: DomainContext,
  cmd: { accountId: string; env: Environment; url: string; events: readonly string[] },
): Promise<EndpointRow> {
  if (!await ctx.store.findAccount(cmd.accountId)) throw errors.accountNotFound(cmd.accountId)
  const { url, events } = checkInput({ url: cmd.url, events: cmd.events })
  const nowMs = ctx.clock.nowMs()
  const row: EndpointRow = {
    id: ctx.ids.newId("wh"),
    accountId: cmd.accountId,
    env: cmd.env,
    url: url!,
    events: events!,
    enabled: true,
    secret: newSigningSecret(),
    previousSecret: null,
    previousSecretExpiresAtMs: null,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
  }
  await ctx.store.write(async (q) => await q.insertEndpoint(row), { changed: ["webhook_endpoints"] })
  return row
}

/** Changes an endpoint's URL, events or enabled flag. */
export async function changeEndpoint(
  ctx: DomainContext,
  id: string,
  patch: { url?: string; events?: readonly string[]; enabled?: boolean },
): Promise<EndpointRow> {
  const current = await getEndpoint(ctx, id)
  const { url, events } = checkInput(patch)
  const next: EndpointRow = {
    ...current,
    url: url ?? current.url,
    events: events ?? current.events,
    enabled: patch.enabled ?? current.enabled,
    updatedAtMs: ctx.clock.nowMs(),
  }
  await ctx.store.write(async (q) => await q.updateEndpoint(next), { changed: ["webhook_endpoints"] })
  return next
}

/** Removes an endpoint with its delivery history. */
export async function removeEndpoint(ctx: DomainContext, id: string): Promise<EndpointRow> {
  const current = await getEndpoint(ctx, id)
  await ctx.store.write(async (q) => await q.deleteEndpoint(id), { changed: ["webhook_endpoints"] })
  return current
}

/**
 * Issues a new secret. The one it replaces keeps signing, as a second `v1`, for 24 hours, so
 * receivers can switch without dropping a single event.
 */
export async function rotateSecret(ctx: DomainContext, id: string): Promise<EndpointRow> {
  const current = await getEndpoint(ctx, id)
  const nowMs = ctx.clock.nowMs()
  const next: EndpointRow = {
    ...current,
    secret: newSigningSecret(),
    previousSecret: current.secret,
    previousSecretExpiresAtMs: nowMs + SECRET_ROTATION_OVERLAP_MS,
    updatedAtMs: nowMs,
  }
  await ctx.store.write(async (q) => await q.updateEndpoint(next), { changed: ["webhook_endpoints"] })
  return next
}

/** A delivery with its attempts. */
export interface DeliveryWithAttempts {
  delivery: DeliveryRow
  eventType: string
  attempts: AttemptRow[]
}

/** An endpoint's deliveries, newest first, each with its attempts. */
export async function listEndpointDeliveries(
  ctx: DomainContext,
  endpointId: string,
  q: { status?: DeliveryStatus; page: number; limit: number },
): Promise<Page<DeliveryWithAttempts>> {
  await getEndpoint(ctx, endpointId)
  const { rows, total } = await ctx.store.listDeliveries({ endpointId, status: q.status, limit: q.limit, offset: (q.page - 1) * q.limit })
  return {
    rows: await Promise.all(rows.map((delivery) => withAttempts(ctx, delivery))),
    total,
    page: q.page,
    limit: q.limit,
  }
}

/** A delivery with its event type and attempts. */
export async function withAttempts(ctx: DomainContext, delivery: DeliveryRow): Promise<DeliveryWithAttempts> {
  return { delivery, eventType: (await ctx.store.findEvent(delivery.eventId))?.type ?? "unknown", attempts: await ctx.store.listAttempts(delivery.id) }
}

/**
 * Sends an event again as a new delivery to the same endpoint, due now. The original keeps its
 * history; the new one names it in `resentFrom`.
 */
export async function resendDelivery(ctx: DomainContext, deliveryId: string): Promise<DeliveryWithAttempts> {
  const original = await ctx.store.findDelivery(deliveryId)
  if (!original) throw errors.deliveryNotFound(deliveryId)
  if (original.status === "pending") throw errors.deliveryStillPending(deliveryId)
  const created = await ctx.store.write(async (q, tx) => await ctx.events.redeliver(q, tx, original))
  return withAttempts(ctx, created)
}
