import { escapeControls } from "../lib/outside-text"

export const WEBHOOK_URL_MAX_LENGTH = 2048

// C0 controls, DEL and C1 controls. The URL parser would drop tabs and newlines silently and
// percent-encode the rest, so an operator would not get the URL they typed (or pasted).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

/** A webhook URL checked: the normalised URL to store, or the problem to show. */
export type WebhookUrlCheck = { href: string; problem: null } | { href: null; problem: string }

/**
 * Checks an operator's webhook URL for the admin API, the CLI and the dashboard alike. Unlike
 * media URLs, http and private addresses are allowed (a local n8n is a common receiver,
 * docs/decisions.md § "Outbound HTTP"); credentials are not, because fetch refuses them and the
 * signature is the authentication. What is stored is the parsed URL's `href`, so every later
 * use sees the same string. A problem names the URL by its origin only: a receiver's path or
 * query often carries a token, and error messages end up in logs and on screens.
 */
export function checkWebhookUrl(url: string): WebhookUrlCheck {
  const refuse = (problem: string): WebhookUrlCheck => ({ href: null, problem })
  let parsed: URL | null = null
  try {
    parsed = new URL(url)
  } catch {
    // Judged below by what it contains; an unparsable URL has no origin to name.
  }
  const named = parsed && (parsed.protocol === "http:" || parsed.protocol === "https:") ? ` (the URL for ${parsed.origin})` : ""
  const control = CONTROL.exec(url)
  if (control) {
    return refuse(`url must not contain control characters: found ${escapeControls(control[0])} at character ${control.index + 1}${named}`)
  }
  if (!parsed) return refuse("url must be an absolute http:// or https:// URL")
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return refuse("url must use http or https")
  if (parsed.username !== "" || parsed.password !== "") {
    return refuse("url must not contain credentials: verify the X-Service-Signature header instead")
  }
  if (url.length > WEBHOOK_URL_MAX_LENGTH || parsed.href.length > WEBHOOK_URL_MAX_LENGTH) {
    return refuse(`url must be at most ${WEBHOOK_URL_MAX_LENGTH} characters${named}`)
  }
  return { href: parsed.href, problem: null }
}
