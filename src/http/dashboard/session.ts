import { checkCsrfToken, resumeDashboardSession, type DashboardSession } from "../../domain/dashboard-sessions"
import type { DomainContext } from "../../domain/context"

/** The session cookie's name. */
export const SESSION_COOKIE = "wagate_session"
/** The form field that carries the CSRF token of plain form posts. */
export const CSRF_FIELD = "_csrf"
/** The header htmx requests carry the CSRF token in (set by `hx-headers` on the body). */
export const CSRF_HEADER = "x-csrf-token"

/** One cookie's value from a Cookie header, or null. */
export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null
  for (const part of header.split(";")) {
    const eq = part.indexOf("=")
    if (eq < 0) continue
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return null
}

/**
 * The Set-Cookie value of a session. No Max-Age: the session ends with the browser or after 12
 * idle hours on the server, whichever comes first. `Secure` only over HTTPS, so a dashboard
 * reached over plain HTTP on 127.0.0.1 still works.
 */
export function sessionCookie(id: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/${secure ? "; Secure" : ""}`
}

/** The Set-Cookie value that clears the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${secure ? "; Secure" : ""}`
}

/** The signed-in session of a request, or null. */
export async function sessionOf(ctx: DomainContext, request: Request): Promise<DashboardSession | null> {
  const id = readCookie(request.headers.get("cookie"), SESSION_COOKIE)
  // Session ids are base62; anything else is not worth a database read.
  if (!id || !/^[0-9A-Za-z]{20,64}$/.test(id)) return null
  return resumeDashboardSession(ctx, id)
}

/**
 * True when the request comes from a page of this origin: its `Origin` (or, when a browser sent
 * none, its `Referer`) names the host the request was sent to. The scheme is not compared,
 * because behind a TLS-terminating proxy the request reaches wagate over HTTP; the host is what
 * a cross-site page cannot forge.
 */
export function isSameOrigin(request: Request): boolean {
  const source = request.headers.get("origin") ?? request.headers.get("referer")
  if (!source || source === "null") return false
  const host = request.headers.get("host") ?? new URL(request.url).host
  try {
    const url = new URL(source)
    return (url.protocol === "http:" || url.protocol === "https:") && url.host === host
  } catch {
    return false
  }
}

/** True when a state-changing request carries the session's CSRF token (header or form field). */
export function hasCsrfToken(session: DashboardSession, request: Request, formField: string): boolean {
  return checkCsrfToken(session, request.headers.get(CSRF_HEADER) ?? formField)
}
