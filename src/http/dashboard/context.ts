import type { DashboardSession } from "../../domain/dashboard-sessions"
import type { Static, TObject } from "@sinclair/typebox"
import { AppError, errors, type ErrorKind } from "../../lib/errors"
import type { HttpDeps } from "../deps"
import { statusOf } from "../errors"
import { clientInfo, type ClientInfo, type PeerSource } from "../client-info"
import { createForwarder, type Forwarder } from "../forward"
import { validationMessages, type RawBody } from "../validation"
import { redirect, refusal, SECURITY_HEADERS } from "./respond"
import { resolveScope, type Scope } from "./scope"
import { CSRF_FIELD, hasCsrfToken, isSameOrigin, sessionOf } from "./session"

/** The dashboard's dependencies: the HTTP layer's, and who a request came from. */
export interface Dashboard {
  deps: HttpDeps
  /**
   * The client's address (sign-in attempts are throttled by it) and whether it reached us over
   * HTTPS (then the cookie gets `Secure`), believing a trusted proxy's forwarding headers.
   */
  client(server: PeerSource | null | undefined, request: Request): ClientInfo
  /** Sends a button's change to the node holding the phone, as the admin API's request (src/http/forward.ts). */
  forwarder: Forwarder
}

export function createDashboard(deps: HttpDeps): Dashboard {
  return { deps, client: (server, request) => clientInfo(server, request, deps.trustedProxies), forwarder: createForwarder(deps) }
}

/** A submitted form (application/x-www-form-urlencoded), read after the request is admitted. */
export class Form {
  constructor(private readonly params: URLSearchParams) {}
  static of(body: unknown): Form {
    const text = typeof body === "object" && body !== null && "text" in body ? (body as RawBody).text : ""
    return new Form(new URLSearchParams(text))
  }
  /** A field's value, "" when absent. */
  get(name: string): string {
    return this.params.get(name) ?? ""
  }
  /** Every value of a repeated field (checkboxes). */
  all(name: string): string[] {
    return this.params.getAll(name)
  }
}

/** What a signed-in page or action handler gets. */
export interface PageContext {
  dash: Dashboard
  request: Request
  /** The socket the request came over (null in-process). */
  server: PeerSource | null
  url: URL
  session: DashboardSession
  scope: Scope
  params: Record<string, string>
  form: Form
}

/** The parts of Elysia's context the wrappers read. */
export interface RouteInput {
  request: Request
  server?: PeerSource | null
  params?: Record<string, string>
  body?: unknown
}

type Handler = (c: PageContext) => Response | Promise<Response>

/** The sign-in page, remembering where the visitor wanted to go (same-site paths only). */
export function signInLocation(url: URL): string {
  const next = url.pathname + url.search
  return next.startsWith("/dashboard") && next !== "/dashboard/sign-in" ? `/dashboard/sign-in?next=${encodeURIComponent(next)}` : "/dashboard/sign-in"
}

/** True for requests htmx makes (boosted navigation, polling): they follow `HX-Redirect` as a full page load. */
function fromHtmx(request: Request): boolean {
  return request.headers.get("hx-request") === "true"
}

async function contextFor(dash: Dashboard, input: RouteInput): Promise<PageContext | Response> {
  const url = new URL(input.request.url)
  const session = await sessionOf(dash.deps.ctx, input.request)
  if (!session) {
    // An htmx request would swap the sign-in page into a fragment; send the whole window there.
    const location = signInLocation(url)
    return fromHtmx(input.request) ? new Response(null, { status: 200, headers: { ...SECURITY_HEADERS, "HX-Redirect": location } }) : redirect(location)
  }
  return { dash, request: input.request, server: input.server ?? null, url, session, scope: await resolveScope(dash.deps.ctx, url), params: input.params ?? {}, form: Form.of(input.body) }
}

/**
 * Wraps a page (GET): signed-in visitors only; others are sent to the sign-in page. An
 * AppError the page lets through (a phone that does not exist) becomes the error page.
 */
export function page(dash: Dashboard, handler: Handler, onError: (c: PageContext, err: AppError) => Response) {
  return async (input: RouteInput): Promise<Response> => {
    const c = await contextFor(dash, input)
    if (c instanceof Response) return c
    try {
      return await handler(c)
    } catch (err) {
      if (err instanceof AppError) return onError(c, err)
      throw err
    }
  }
}

/**
 * Wraps a state-changing request (POST): signed-in, same-origin and carrying the session's CSRF
 * token, or a 403 before the handler runs, so nothing changes.
 */
export function action(dash: Dashboard, handler: Handler, onError: (c: PageContext, err: AppError) => Response) {
  return async (input: RouteInput): Promise<Response> => {
    if (!isSameOrigin(input.request)) return refusal(403, "Refused: this request did not come from a dashboard page of this origin.")
    const c = await contextFor(dash, input)
    if (c instanceof Response) {
      const refused = refusal(403, "Refused: you are not signed in (or your session ended). Sign in again.")
      if (fromHtmx(input.request)) refused.headers.set("HX-Redirect", "/dashboard/sign-in")
      return refused
    }
    if (!hasCsrfToken(c.session, c.request, c.form.get(CSRF_FIELD))) return refusal(403, "Refused: the form's security token is missing or stale. Reload the page and try again.")
    try {
      return await handler(c)
    } catch (err) {
      if (err instanceof AppError) return onError(c, err)
      throw err
    }
  }
}

/** What a refused form shows above itself again: the public messages, with the status they carry. */
export interface FormFailure {
  errors: string[]
  status: number
}

/**
 * How a form names the API fields it fills: the label the operator reads beside the field, and,
 * where the API's sentence speaks of JSON (`["*"]`, ISO 8601, a companion field the form does
 * not have), the sentence to say instead, chosen by a pattern of the API's message.
 */
export type FormWords = Readonly<Record<string, { label: string; sentences?: readonly (readonly [RegExp, string])[] }>>

/**
 * A refusal's messages in the form's words: a message that starts with an API field name starts
 * with that field's label instead (or is replaced by the form's own sentence for it). Messages
 * about nothing on the form pass unchanged.
 */
export function inFormWords(messages: readonly string[], words: FormWords): string[] {
  return messages.map((message) => {
    for (const [field, { label, sentences }] of Object.entries(words)) {
      if (!message.startsWith(`${field} `) && !message.startsWith(`${field}[`)) continue
      const sentence = sentences?.find(([pattern]) => pattern.test(message))
      return sentence ? sentence[1] : `${label}${message.slice(field.length)}`
    }
    return message
  })
}

/**
 * Shows a refused form on its own page again, with the failure's messages (in the form's
 * `words`) and status. Any other error, and an AppError of the kind `passOn` (a record that no
 * longer exists), goes on to the action's error page.
 */
export async function formFailure(
  err: unknown,
  render: (failure: FormFailure) => Response | Promise<Response>,
  options: { words?: FormWords; passOn?: ErrorKind } = {},
): Promise<Response> {
  if (err instanceof AppError && err.kind !== options.passOn) {
    return render({ errors: options.words ? inFormWords(err.publicMessages, options.words) : err.publicMessages, status: statusOf(err.kind) })
  }
  throw err
}

/**
 * Checks a form, turned into the admin API's body shape, against that body's TypeBox schema: the
 * dashboard applies the same rules with the same messages, and throws the same 400.
 */
export function validated<T extends TObject>(schema: T, value: Record<string, unknown>): Static<T> {
  const problems = validationMessages(schema, value)
  if (problems.length > 0) throw errors.validation(problems)
  return value as Static<T>
}
