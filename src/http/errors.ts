import { Elysia } from "elysia"
import { AppError, errors, type ErrorKind } from "../lib/errors"
import { toIso } from "../lib/time"
import { clientInfo } from "./client-info"
import type { HttpDeps } from "./deps"
import { createForwarder } from "./forward"
import type { ErrorEnvelope } from "./models/common"

const STATUS: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  upgrade_required: 426,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  rate_limited: 429,
  internal: 500,
  bad_gateway: 502,
  unavailable: 503,
}

/** The spec's short `error` titles (docs/decisions.md § "Errors and validation"). */
const TITLE: Record<ErrorKind, string> = {
  bad_request: "Bad Request",
  unauthorized: "Unauthorized",
  forbidden: "Forbidden",
  not_found: "Not Found",
  method_not_allowed: "Method Not Allowed",
  upgrade_required: "Upgrade Required",
  conflict: "Conflict",
  gone: "Gone",
  payload_too_large: "Payload Too Large",
  rate_limited: "Rate limit exceeded",
  internal: "Internal Server Error",
  bad_gateway: "Bad Gateway",
  unavailable: "Service Unavailable",
}

/** The HTTP status of an error kind. */
export function statusOf(kind: ErrorKind): number {
  return STATUS[kind]
}

/** Builds the error envelope and its response for an AppError. */
export function errorResponse(err: AppError, path: string, nowMs: number, headers: Record<string, string> = {}): Response {
  const statusCode = STATUS[err.kind]
  const body: ErrorEnvelope = {
    success: false,
    error: TITLE[err.kind],
    message: err.publicMessages,
    statusCode,
    timestamp: toIso(nowMs),
    path,
  }
  const responseHeaders: Record<string, string> = { ...headers, ...err.headers, "Content-Type": "application/json" }
  if (err.retryAfterSeconds !== undefined) {
    body.retryAfter = err.retryAfterSeconds
    responseHeaders["Retry-After"] = String(err.retryAfterSeconds)
  }
  return new Response(JSON.stringify(body), { status: statusCode, headers: responseHeaders })
}

/** Turns whatever a route threw into an AppError; unknown errors become a generic 500. */
export function toAppError(
  code: string | number,
  error: unknown,
  method: string,
  path: string,
  allowedMethods: (path: string) => readonly string[] = () => [],
): AppError {
  if (error instanceof AppError) return error
  if (code === "NOT_FOUND") {
    // A path that exists under other methods is a 405 (RFC 9110 §15.5.6), not a missing route.
    // The router is the judge: when it found nothing even though a pattern here says this method
    // matches (an encoding the router reads differently), the honest answer stays 404.
    const allowed = allowedMethods(path)
    return allowed.length > 0 && !allowed.includes(method) ? errors.methodNotAllowed(method, path, allowed) : errors.routeNotFound(method, path)
  }
  // Elysia wraps whatever a parse hook throws (our 413, for one) in a ParseError.
  if (code === "PARSE") {
    const cause = (error as { cause?: unknown }).cause
    return cause instanceof AppError ? cause : errors.invalidJson()
  }
  // Requests are validated by our own parsers; an Elysia validation error can only come from a
  // response that does not match its declared schema, which is our bug, not the client's.
  if (code === "VALIDATION") return errors.internal(error)
  return errors.internal(error)
}

/** The path of a request, without its query string. */
export function requestPath(request: Request): string {
  const url = request.url
  const start = url.indexOf("/", url.indexOf("//") + 2)
  if (start === -1) return "/"
  const query = url.indexOf("?", start)
  return query === -1 ? url.slice(start) : url.slice(start, query)
}

/**
 * The one global error handler: every failure, from any route or plugin, leaves as the spec's
 * envelope. Expected failures keep their public messages; anything else is logged with its
 * cause and answered with a fixed 500 that reveals no stack, SQL or path.
 *
 * The path is read from the request, not from Elysia's context `path`: Elysia fills `path` only
 * when it infers, from the handler's source text, that the handler reads it, and that inference
 * misreads minified code (the compiled executable's envelopes had no `path`).
 */
export function errorHandler(deps: HttpDeps, allowedMethods: (path: string) => readonly string[] = () => []) {
  const forwarder = createForwarder(deps)
  const answer = (err: AppError, path: string, set: { status?: unknown; headers: unknown }) => {
    // Elysia reports this status to onAfterResponse, which counts the request for usage.
    set.status = STATUS[err.kind]
    return errorResponse(err, path, deps.ctx.clock.nowMs(), set.headers as Record<string, string>)
  }
  // The parameter is destructured: Elysia reads a hook's source text to learn which parts of the
  // context every route must prepare, and a context passed on whole would make them prepare all.
  return new Elysia({ name: "wagate.errors" }).onError({ as: "global" }, ({ code, error, set, request, server, body }) => {
    const path = requestPath(request)
    const err = toAppError(code, error, request.method, path, allowedMethods)
    if (err.kind === "internal") {
      const { ip } = clientInfo(server, request, deps.trustedProxies)
      deps.ctx.logger.error("request failed", { method: request.method, path, ip, err: err.cause ?? error })
    }
    if (!forwarder.applies(err, request)) return answer(err, path, set)
    // Another node holds the phone: it answers, when it advertised where (src/http/forward.ts).
    // The body was read by the route's parse hook; Elysia leaves it on the context.
    return forwarder.forward(err, request, body).then(
      (forwarded) => {
        if (forwarded === null) return answer(err, path, set)
        set.status = forwarded.status
        return forwarded
      },
      (failure: unknown) => answer(toAppError("UNKNOWN", failure, request.method, path), path, set),
    )
  })
}
