import type { ComponentChildren } from "preact"
import { ENVIRONMENTS } from "../../../lib/vocabulary"
import { ASSET_PATHS } from "../assets"
import { href, type Scope } from "../scope"
import { CSRF_FIELD } from "../session"

/** The sections of the navigation, in order; their names are stable (tests and scripts find them). */
export const NAV = [
  { name: "Overview", path: "/dashboard" },
  { name: "Phones", path: "/dashboard/phones" },
  { name: "Keys", path: "/dashboard/keys" },
  { name: "Webhooks", path: "/dashboard/webhooks" },
  { name: "Messages", path: "/dashboard/messages" },
  { name: "Chats", path: "/dashboard/chats" },
  { name: "Sandbox", path: "/dashboard/sandbox" },
  { name: "Usage", path: "/dashboard/usage" },
  { name: "Accounts", path: "/dashboard/accounts" },
  { name: "Nodes", path: "/dashboard/nodes" },
] as const

export type Section = (typeof NAV)[number]["name"]

/**
 * htmx settings (read from this meta tag, since inline script is forbidden): no injected
 * indicator style (the CSP forbids inline style), no eval, no page snapshots in localStorage
 * (a page may show a new key once), and error pages are swapped in like any other.
 */
const HTMX_CONFIG = JSON.stringify({
  includeIndicatorStyles: false,
  allowEval: false,
  allowScriptTags: false,
  historyCacheSize: 0,
  refreshOnHistoryMiss: true,
  selfRequestsOnly: true,
  responseHandling: [
    { code: "204", swap: false },
    { code: "[2345]..", swap: true },
  ],
})

function Head(props: { title: string }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="htmx-config" content={HTMX_CONFIG} />
      <title>{`${props.title} · wagate`}</title>
      <link rel="icon" type="image/svg+xml" href={ASSET_PATHS.favicon} />
      <link rel="stylesheet" href={ASSET_PATHS.css} />
      <script src={ASSET_PATHS.htmx} defer></script>
      <script src={ASSET_PATHS.js} defer></script>
    </head>
  )
}

/** The hidden CSRF field every dashboard form carries. */
export function CsrfField(props: { token: string }) {
  return <input type="hidden" name={CSRF_FIELD} value={props.token} />
}

/** The account switcher and the environment switch; both keep the current page. */
function ScopeBar(props: { scope: Scope; path: string; envScoped: boolean; accountScoped: boolean }) {
  const { scope, path } = props
  const showAccounts = props.accountScoped && scope.accounts.length > 0
  if (!showAccounts && !props.envScoped) return null
  return (
    <div class="scopebar">
      {showAccounts ? (
        <form method="get" action={path} class="inline">
          <label for="account-switch">Account</label>
          <select id="account-switch" name="account">
            {scope.accounts.map((a) => (
              <option value={a.id} selected={a.id === scope.account?.id}>
                {a.name}
              </option>
            ))}
          </select>
          <input type="hidden" name="env" value={scope.env} />
          <button type="submit">Switch</button>
        </form>
      ) : null}
      {props.envScoped ? (
        <nav aria-label="Environment" class="envswitch">
          {ENVIRONMENTS.map((env) => (
            <a href={href(path, { account: scope.account, env })} aria-current={env === scope.env ? "page" : undefined} class={`env env-${env}`}>
              {env === "test" ? "Test data" : "Live data"}
            </a>
          ))}
        </nav>
      ) : null}
    </div>
  )
}

/**
 * The main menu and the sign-out button. On a narrow screen they fold into a disclosure whose
 * summary names the current page, so content starts right under one line of header; on a wide
 * one the stylesheet shows its content and hides the summary (the layout of a plain bar). A
 * disclosure needs no script and opens with Enter or Space.
 */
function MainMenu(props: { section: Section | null; scope: Scope; csrfToken: string }) {
  return (
    <details class="menu">
      <summary>
        Menu{props.section ? <span class="menu-current">{` · ${props.section}`}</span> : null}
      </summary>
      <nav aria-label="Main" class="mainnav">
        <ul>
          {NAV.map((item) => (
            <li>
              <a href={href(item.path, props.scope)} aria-current={item.name === props.section ? "page" : undefined}>
                {item.name}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <form method="post" action="/dashboard/sign-out" class="signout">
        <CsrfField token={props.csrfToken} />
        <button type="submit">Sign out</button>
      </form>
    </details>
  )
}

/** The page frame of a signed-in visitor: navigation, scope switchers, the page's content. */
export function Layout(props: {
  title: string
  section: Section | null
  scope: Scope
  csrfToken: string
  /**
   * Where the account and environment switches lead: the page itself for lists, the section's
   * list for a detail page (a phone belongs to one account; switching shows the other's phones).
   */
  path: string
  /** Pages whose lists depend on the environment show the test/live switch. */
  envScoped?: boolean
  /** False for a page that shows the same whatever the account (the nodes): it has no account switcher. */
  accountScoped?: boolean
  children: ComponentChildren
}) {
  const { scope } = props
  return (
    <html lang="en">
      <Head title={props.title} />
      <body>
        {/*
          htmx settings sit on a wrapper, not on <body>: a boosted navigation replaces the body's
          content but keeps <body> itself, so a CSRF token on it would outlive its session.
        */}
        <div class="app" hx-boost="true" hx-headers={JSON.stringify({ "X-CSRF-Token": props.csrfToken })}>
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="top">
            <a class="brand" href={href("/dashboard", scope)}>
              wagate
            </a>
            <MainMenu section={props.section} scope={scope} csrfToken={props.csrfToken} />
          </header>
          <ScopeBar scope={scope} path={props.path} envScoped={props.envScoped ?? false} accountScoped={props.accountScoped ?? true} />
          <main id="main" tabindex={-1}>
            <h1>{props.title}</h1>
            {props.children}
          </main>
        </div>
      </body>
    </html>
  )
}

/** The frame of the sign-in page: no navigation, nothing about the instance. */
export function BareLayout(props: { title: string; children: ComponentChildren }) {
  return (
    <html lang="en">
      <Head title={props.title} />
      <body>
        <div class="bare">
          <main id="main">{props.children}</main>
        </div>
      </body>
    </html>
  )
}
