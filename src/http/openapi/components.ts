import { ENVIRONMENTS } from "../../lib/vocabulary"
import type { JsonObject } from "./json-schema"

/**
 * The response headers and the error responses the document shares between operations, as
 * `components.headers` and `components.responses`. /v1 and /admin/v1 answer with different
 * headers (a /v1 response carries the key's rate limit once the key is known), so each has its
 * own family of error responses.
 */

const integer = (description: string, example: number): JsonObject => ({ description, schema: { type: "integer", minimum: 0 }, example })
const text = (description: string, example: string): JsonObject => ({ description, schema: { type: "string" }, example })

export const HEADERS: Record<string, JsonObject> = {
  "X-RateLimit-Limit": integer("Requests this key may make per minute.", 100),
  "X-RateLimit-Remaining": integer("Requests left in the current window.", 99),
  "X-RateLimit-Reset": integer("Unix time (seconds) at which the key's allowance is full again.", 1795000000),
  "RateLimit-Policy": text("The same limit in the IETF draft format: quota `q` per window `w` seconds.", '"default";q=100;w=60'),
  RateLimit: text("The IETF draft header: remaining `r`, seconds until reset `t`.", '"default";r=99;t=1'),
  "X-Service-Environment": {
    description: "The environment of the API key: test (sandbox) or live.",
    schema: { type: "string", enum: [...ENVIRONMENTS] },
    example: "test",
  },
  "Retry-After": { ...integer("Seconds to wait before retrying (the same as `retryAfter` in the body).", 12), required: true },
  "WWW-Authenticate": { ...text("The authentication scheme and realm.", 'Bearer realm="wagate"'), required: true },
  Allow: { ...text("The methods this path answers to.", "GET, PATCH"), required: true },
  Upgrade: { ...text("The protocol the route speaks.", "websocket"), required: true },
  "Idempotent-Replayed": {
    description: "`true` when an earlier request with the same idempotencyKey created the message and this answer replays it.",
    schema: { type: "string", enum: ["true", "false"] },
    required: true,
    example: "false",
  },
}

/** The headers every authenticated /v1 response carries. */
export const API_KEY_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit", "X-Service-Environment"]

export function headerRefs(names: readonly string[]): Record<string, JsonObject> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]))
}

export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 410 | 413 | 426 | 429 | 500 | 502 | 503
export type Family = "Api" | "Admin"

const TITLES: Record<ErrorStatus, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "Conflict",
  410: "Gone",
  413: "PayloadTooLarge",
  426: "UpgradeRequired",
  429: "TooManyRequests",
  500: "InternalServerError",
  502: "BadGateway",
  503: "ServiceUnavailable",
}

const DESCRIPTIONS: Record<Family, Record<ErrorStatus, string>> = {
  Api: {
    400: "Invalid body or query (one message per problem), or (live keys) the phone is not connected.",
    401: "Missing, invalid, revoked or expired API key.",
    403: "The key holds none of the accepted scopes, or (live keys) the account's subscription is inactive.",
    404: "Not found in this account and environment.",
    405: "The path exists but not with this method; `Allow` lists the methods it has.",
    409: "Conflicts with an existing resource or its state, or (several nodes) another node holds the phone and advertised no URL to forward the request to.",
    410: "WhatsApp no longer has it, and will not send it again.",
    413: "The body is larger than 64 KiB.",
    426: "The route speaks WebSocket only and the request asked for no upgrade; `Upgrade` names the protocol.",
    429: "The key's rate limit, or the throttle on failed authentication, was exceeded; retry after `retryAfter` seconds.",
    500: "An unexpected failure. The body reveals no stack, SQL or path.",
    502: "WhatsApp could not be reached; retry after a moment.",
    503: "Several nodes: the node holding the phone this request needs did not answer when the request was forwarded to it; retry after `retryAfter` seconds.",
  },
  Admin: {
    400: "Invalid body or query (one message per problem).",
    401: "Missing or invalid admin token.",
    403: "Forbidden.",
    404: "The account, phone, key, endpoint or delivery does not exist.",
    405: "The path exists but not with this method; `Allow` lists the methods it has.",
    409: "Conflicts with an existing resource or with the resource's state, or (several nodes) another node holds the phone and advertised no URL to forward the request to.",
    410: "Gone.",
    413: "The body is larger than 64 KiB.",
    426: "The route speaks WebSocket only and the request asked for no upgrade; `Upgrade` names the protocol.",
    429: "Too many failed authentication attempts from this address; retry after `retryAfter` seconds.",
    500: "An unexpected failure. The body reveals no stack, SQL or path.",
    502: "An upstream service could not be reached.",
    503: "Several nodes: the node holding the phone this request needs did not answer when the request was forwarded to it; retry after `retryAfter` seconds.",
  },
}

/** The component name of one error response. */
export function errorResponseName(family: Family, status: ErrorStatus): string {
  return `${family}${TITLES[status]}`
}

const BEFORE_AUTHENTICATION = new Set<ErrorStatus>([401, 405, 426])

/** The error response object: the envelope, and the headers this family sends with it. */
export function errorResponse(family: Family, status: ErrorStatus, errorSchemaRef: JsonObject): JsonObject {
  const headers: string[] = []
  // A /v1 request that got past authentication carries the key's rate-limit headers, failures
  // included; a 401, 405 or 426 is answered before the key is looked at.
  if (family === "Api" && !BEFORE_AUTHENTICATION.has(status)) headers.push(...API_KEY_HEADERS)
  if (status === 401) headers.push("WWW-Authenticate")
  if (status === 429) headers.push("Retry-After")
  if (status === 405) headers.push("Allow")
  if (status === 426) headers.push("Upgrade")
  const schema = status === 429 ? { allOf: [errorSchemaRef, { required: ["retryAfter"] }] } : errorSchemaRef
  return {
    description: DESCRIPTIONS[family][status],
    ...(headers.length > 0 ? { headers: headerRefs(headers) } : {}),
    content: { "application/json": { schema } },
  }
}

/** Every error response of every family, by component name. */
export function errorResponses(errorSchemaRef: JsonObject): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {}
  for (const family of ["Api", "Admin"] as const) {
    for (const status of Object.keys(TITLES).map(Number) as ErrorStatus[]) {
      out[errorResponseName(family, status)] = errorResponse(family, status, errorSchemaRef)
    }
  }
  return out
}
