import { boundedOutsideText } from "./outside-text"

/*
 * WAGATE_DATABASE_URL names the database and usually carries its password. Whatever wagate
 * prints or logs about it goes through redactDatabaseUrl, so the password never reaches a
 * terminal, a log or an error report.
 */

/** The schemes that select PostgreSQL; without a URL wagate uses SQLite in its data directory. */
export const POSTGRES_URL_SCHEMES = ["postgres:", "postgresql:"] as const

/** True when `url` selects PostgreSQL (by its scheme; anything else is not a database URL wagate knows). */
export function isPostgresUrl(url: string): boolean {
  return (POSTGRES_URL_SCHEMES as readonly string[]).some((scheme) => url.toLowerCase().startsWith(`${scheme}//`))
}

/**
 * The URL with its password replaced by `***` (user, host, port, database and options kept, so
 * the operator recognises it), bounded and with control characters escaped. Text that is not a
 * URL still loses whatever sits between `user:` and the last `@` before the host.
 */
export function redactDatabaseUrl(url: string): string {
  let redacted: string
  try {
    const parsed = new URL(url)
    if (parsed.password !== "") parsed.password = "***"
    redacted = parsed.toString()
    // URL keeps a bare "postgres://host" as is; only the password may change.
    if (!parsed.password && !url.includes("@")) redacted = url
  } catch {
    redacted = url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^/]*@/i, "$1:***@")
  }
  return boundedOutsideText(redacted)
}
