import { Elysia } from "elysia"
import { authenticateApiKey, type Principal } from "../../domain/api-keys"
import { effectiveRateLimit } from "../../domain/accounts"
import { hasAnyScope } from "../../domain/scopes"
import { errors } from "../../lib/errors"
import type { HttpDeps } from "../deps"
import { answeredElsewhere } from "../forward"
import { verifiedNodeRequest } from "../node-requests"
import { readRawBody } from "./body"
import { refuseAuthentication } from "./failed-auth"
import { ENVIRONMENT_FROM_KEY, queryNamesEnvironment } from "../validation"
import { EVENT_SOCKET_PATH, EVENT_STREAM_PATH } from "../models/events"

/** Reads `Authorization: Bearer <token>`; null when absent or not a bearer credential. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")
  return match ? match[1]! : null
}

/**
 * The key a stream client put in the URL (`?access_token=`), accepted on the event streams only
 * (Server-Sent Events and WebSocket): EventSource, browsers' WebSocket and no-code tools cannot
 * set headers (docs/webhooks.md § "Streams"). Nothing logs
 * query strings (src/app.ts), so the token stays out of the logs.
 */
function streamQueryToken(request: Request): string | null {
  const url = new URL(request.url)
  return url.pathname === EVENT_STREAM_PATH || url.pathname === EVENT_SOCKET_PATH ? url.searchParams.get("access_token") : null
}

/**
 * The `/v1` base: reads bodies raw, authenticates the API key, charges the key's token bucket
 * and sets the rate-limit headers, enforces the live subscription gate, and declares the
 * `scopes` macro routes use. Order: 401 → 429 → 403 → 400, so a request is only validated once
 * we know who sent it and that they may. Failed authentication is throttled per client IP and
 * never touches a key's quota. A request another node forwarded, signed (src/http/node-requests.ts),
 * was charged there: it takes no second token here.
 */
export function apiBase(deps: HttpDeps) {
  const { ctx, limiter, usage } = deps
  return new Elysia({ prefix: "/v1" })
    .onParse(readRawBody)
    .derive(async ({ headers, request, server, set, body }): Promise<{ principal: Principal }> => {
      const fromNode = await verifiedNodeRequest(deps, server, request, body)
      const token = bearerToken(headers.authorization) ?? streamQueryToken(request)
      const principal = token ? await authenticateApiKey(ctx, token) : null
      if (!principal) {
        // The sending node admitted this key a moment ago (it was revoked since): no guess to count.
        if (fromNode !== null) throw token ? errors.invalidApiKey() : errors.missingApiKey()
        // Only a failed attempt needs the address (asking the socket for it costs every request).
        throw refuseAuthentication(deps, "api_key", server, request, token ? errors.invalidApiKey() : errors.missingApiKey())
      }
      if (fromNode !== null) return { principal }
      const limit = effectiveRateLimit(ctx, principal.account)
      const taking = limiter.takeForKey(principal.keyId, limit)
      // Awaited only when it is a promise (a draw from the shared bucket): the in-memory answer
      // costs no extra turn.
      const taken = taking instanceof Promise ? await taking : taking
      const resetSeconds = Math.ceil(taken.resetAfterMs / 1000)
      Object.assign(set.headers, {
        "X-RateLimit-Limit": String(limit),
        "X-RateLimit-Remaining": String(taken.remaining),
        "X-RateLimit-Reset": String(Math.ceil((ctx.clock.nowMs() + taken.resetAfterMs) / 1000)),
        "RateLimit-Policy": `"default";q=${limit};w=60`,
        RateLimit: `"default";r=${taken.remaining};t=${resetSeconds}`,
        "X-Service-Environment": principal.env,
      })
      if (!taken.allowed) {
        deps.metrics.rateLimitRejections.inc({ limiter: "key" })
        usage.recordRequest(principal, 429)
        throw errors.rateLimited(Math.max(1, Math.ceil(taken.retryAfterMs / 1000)))
      }
      if (principal.env === "live" && principal.account.subscriptionStatus !== "active") {
        usage.recordRequest(principal, 403)
        throw errors.subscriptionInactive()
      }
      return { principal }
    })
    .macro({
      /**
       * Admits the request when the key holds any one of these scopes (the spec's scope matrix),
       * then refuses an `environment` query parameter on every route alike: the environment is
       * the key's. It runs here, after the scope check, to keep the order 401 → 429 → 403 → 400.
       * The hook is an arrow function, not a method: Elysia reads hooks' source text to learn
       * what they use, and cannot parse a minified method (it logged a "Sucrose" warning).
       */
      scopes: (accepted: readonly string[]) => ({
        beforeHandle: (context: { principal?: Principal; request: Request }) => {
          if (!context.principal || !hasAnyScope(context.principal.scopes, accepted)) throw errors.missingScope(accepted)
          if (queryNamesEnvironment(context.request.url)) throw errors.validation([ENVIRONMENT_FROM_KEY.environment])
        },
      }),
    })
    .onAfterResponse((context) => {
      // Read off the context, not destructured with a rest pattern: that copied every field of
      // the context on every request.
      const set = context.set
      const principal = (context as { principal?: Principal }).principal
      // A request another node answered (src/http/forward.ts) is counted there, where it ran.
      if (principal && !answeredElsewhere.has(context.request)) usage.recordRequest(principal, typeof set.status === "number" ? set.status : 200)
    })
}

/** The `/v1` instance routes are registered on. */
export type ApiApp = ReturnType<typeof apiBase>
