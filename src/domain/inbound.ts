import { errors } from "../lib/errors"
import { findScopedInbound, listInbound as listInboundRows, type InboundRow } from "../store/inbound"
import { findPhoneByRef } from "../store/phones"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import type { Page } from "./messages"

/**
 * Lists inbound messages. Test keys always get an empty list: the sandbox receives nothing
 * (spec, GET /v1/messages/inbound), and the partition by environment guarantees it.
 */
export function listInbound(
  ctx: DomainContext,
  principal: Principal,
  q: { phoneNumberId?: string; page: number; limit: number },
): Page<InboundRow> {
  const empty = { rows: [], total: 0, page: q.page, limit: q.limit }
  if (principal.env === "test") return empty
  let phoneId: string | undefined
  if (q.phoneNumberId !== undefined) {
    const phone = findPhoneByRef(ctx.db, principal.accountId, q.phoneNumberId)
    if (!phone) return empty
    phoneId = phone.id
  }
  const { rows, total } = listInboundRows(ctx.db, {
    accountId: principal.accountId,
    env: principal.env,
    phoneId,
    limit: q.limit,
    offset: (q.page - 1) * q.limit,
  })
  return { rows, total, page: q.page, limit: q.limit }
}

/** One inbound message of the principal's account and environment, or 404. */
export function getInbound(ctx: DomainContext, principal: Principal, id: string): InboundRow {
  const row = principal.env === "live" ? findScopedInbound(ctx.db, principal.accountId, principal.env, id) : null
  if (!row) throw errors.inboundNotFound(id)
  return row
}
