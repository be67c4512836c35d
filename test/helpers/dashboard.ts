import { afterEach, beforeEach } from "bun:test"
import type { AccountRow } from "../../src/store/accounts"
import { createHarness, type Harness } from "./harness"

/** The origin every in-process dashboard request is sent to. */
export const ORIGIN = "http://localhost"

/** A dashboard response read once. */
export interface PageResponse {
  status: number
  headers: Headers
  html: string
}

/** A signed-in browser stand-in: sends the session cookie, and the CSRF token and Origin on posts. */
export interface DashboardClient {
  cookie: string
  csrfToken: string
  get(path: string, headers?: Record<string, string>): Promise<PageResponse>
  /** A form post as a dashboard page sends it; `options` can leave out or forge the protections. */
  post(
    path: string,
    fields?: Record<string, string | string[]>,
    options?: { csrf?: string | null; origin?: string | null; referer?: string; headers?: Record<string, string> },
  ): Promise<PageResponse>
}

async function read(res: Response): Promise<PageResponse> {
  return { status: res.status, headers: res.headers, html: await res.text() }
}

/** The url-encoded body of a form, repeated fields included. */
export function formBody(fields: Record<string, string | string[]>): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) for (const v of Array.isArray(value) ? value : [value]) params.append(name, v)
  return params.toString()
}

/** Posts the sign-in form with `token`. */
export async function postSignIn(h: Harness, token: string, options: { next?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  return h.app.handle(
    new Request(`${ORIGIN}/dashboard/sign-in`, {
      method: "POST",
      headers: { origin: ORIGIN, "content-type": "application/x-www-form-urlencoded", ...options.headers },
      body: formBody({ token, next: options.next ?? "" }),
    }),
  )
}

/** The CSRF token a page embeds (hidden field), so a client posts what a browser would. */
export function csrfTokenOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html)
  if (!match) throw new Error("the page has no CSRF field")
  return match[1]!
}

/** Signs in with the admin token and returns a client carrying the session. */
export async function signIn(h: Harness, token?: string): Promise<DashboardClient> {
  const res = await postSignIn(h, token ?? (await h.adminToken()))
  const setCookie = res.headers.get("set-cookie")
  if (res.status !== 303 || !setCookie) throw new Error(`sign-in failed: ${res.status}`)
  const cookie = setCookie.split(";")[0]!
  const client: DashboardClient = {
    cookie,
    csrfToken: "",
    async get(path, headers = {}) {
      return read(await h.app.handle(new Request(`${ORIGIN}${path}`, { headers: { cookie, ...headers } })))
    },
    async post(path, fields = {}, options = {}) {
      const headers: Record<string, string> = { cookie, "content-type": "application/x-www-form-urlencoded", ...options.headers }
      if (options.origin !== null) headers.origin = options.origin ?? ORIGIN
      if (options.referer) headers.referer = options.referer
      const csrf = options.csrf === undefined ? client.csrfToken : options.csrf
      const body = formBody(csrf === null ? fields : { ...fields, _csrf: csrf })
      return read(await h.app.handle(new Request(`${ORIGIN}${path}`, { method: "POST", headers, body })))
    },
  }
  client.csrfToken = csrfTokenOf((await client.get("/dashboard/phones")).html)
  return client
}

/** Hostile strings for user-data fields; the e-mail one has no spaces, so an account accepts it. */
export const HOSTILE = {
  script: "<script>alert(1)</script>",
  attribute: '"><img src=x onerror=alert(1)>',
  email: '"><img/src=x/onerror=alert(1)>@example.com',
} as const

/** A string as preact escapes it in text and attribute values. */
export function escaped(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll('"', "&quot;")
}

/**
 * Asserts each hostile string is on the page escaped (so the field was rendered at all and the
 * check cannot pass by leaving it out) and never raw, and that no injected tag opened.
 */
export function expectEscaped(html: string, values: readonly string[]): void {
  for (const value of values) {
    if (!html.includes(escaped(value))) throw new Error(`the page does not show ${JSON.stringify(value)} (escaped)`)
    if (html.includes(value)) throw new Error(`the page shows ${JSON.stringify(value)} unescaped`)
  }
  for (const marker of ["<script>alert", "<img"]) {
    if (html.includes(marker)) throw new Error(`unescaped markup in the page: ${marker}`)
  }
}

/** What each test of a dashboard page's file starts from. */
export interface SignedInDashboard {
  h: Harness
  /** The account "Acme", the only one. */
  account: AccountRow
  client: DashboardClient
}

/**
 * Registers hooks that give each test a fresh harness with the account "Acme" and a client
 * signed in to the dashboard (handed to `use`), and close the harness after the test.
 */
export function signedInForEachTest(use: (made: SignedInDashboard) => void): void {
  let h: Harness | undefined
  beforeEach(async () => {
    h = await createHarness()
    const account = await h.seedAccount({ name: "Acme" })
    use({ h, account, client: await signIn(h) })
  })
  afterEach(() => h?.close())
}
