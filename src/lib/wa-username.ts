import { boundedOutsideText } from "./outside-text"

/*
 * Usernames and push names come from WhatsApp's stanzas (`participant_username`,
 * `peer_recipient_username`: WhiskeySockets/Baileys#2480), that is from the sender: they are kept,
 * shown and sent to webhooks only once made safe here.
 */

/** The longest username kept. WhatsApp's own are far shorter; anything longer is not one. */
export const USERNAME_MAX_CHARS = 64
/** The longest push name kept (the name a sender gave itself), ellipsis included. */
const PUSH_NAME_MAX_CHARS = 128

// Letters, digits, periods and underscores, as WhatsApp's usernames are made: nothing a terminal,
// a log viewer or an HTML page could act on.
export const USERNAME_PATTERN = "^[A-Za-z0-9._]+$"
const USERNAME = new RegExp(USERNAME_PATTERN)

/**
 * A username from a stanza, or null when there is none or it is not a username: a leading `@` is
 * dropped, and text that is too long or holds anything but letters, digits, `.` and `_` is
 * refused whole rather than cut (a cut username would name someone else).
 */
export function usernameFromOutside(raw: unknown): string | null {
  if (typeof raw !== "string") return null
  const name = raw.trim().replace(/^@/, "")
  if (name.length === 0 || name.length > USERNAME_MAX_CHARS || !USERNAME.test(name)) return null
  return name
}

/** A push name from a stanza, made safe (controls escaped, bounded), or null when empty. */
export function pushNameFromOutside(raw: unknown): string | null {
  if (typeof raw !== "string" || raw.trim() === "") return null
  return boundedOutsideText(raw.trim(), PUSH_NAME_MAX_CHARS)
}
