import { Elysia } from "elysia"
import { verifyAdminToken } from "../../domain/admin"
import { errors } from "../../lib/errors"
import type { HttpDeps } from "../deps"
import { bearerToken } from "./api-auth"
import { refuseAuthentication, throttledAuthentication } from "./failed-auth"
import { readRawBody } from "./body"
import { verifiedNodeRequest } from "../node-requests"

/**
 * The `/admin/v1` base: the operator's API (docs/decisions.md § "Operator surface"), behind the admin token, with the
 * same body handling and envelopes as `/v1`. Failed attempts share the per-IP throttle of the
 * admin token, and a throttled address is refused before its token is looked at, the right one
 * included. A request another node forwarded, signed with the node secret
 * (src/http/node-requests.ts), is admitted on that node's word: it checked the admin token or
 * the dashboard session that asked for it.
 */
export function adminBase(deps: HttpDeps) {
  const { ctx } = deps
  return new Elysia({ prefix: "/admin/v1" })
    .onParse(readRawBody)
    .onBeforeHandle(async ({ headers, request, server, body }) => {
      if (await verifiedNodeRequest(deps, server, request, body) !== null) return
      const throttled = throttledAuthentication(deps, "admin_token", server, request)
      if (throttled) throw throttled
      const token = bearerToken(headers.authorization)
      if (token && await verifyAdminToken(ctx, token, deps.localAdminToken)) return
      throw refuseAuthentication(deps, "admin_token", server, request, errors.missingAdminToken())
    })
}

/** The `/admin/v1` instance routes are registered on. */
export type AdminApp = ReturnType<typeof adminBase>
