/** E.164 as docs/decisions.md § "Errors and validation" defines it: a plus, a non-zero digit, then 7 to 14 digits. */
export const E164_PATTERN = "^\\+[1-9][0-9]{7,14}$"
/** A WhatsApp group JID: digits, optionally `-digits` (old-style groups), then `@g.us`. */
export const GROUP_JID_PATTERN = "^[0-9]+(-[0-9]+)?@g\\.us$"

/**
 * A hidden number's JID: WhatsApp's LID, digits then `@lid` (docs/api.md § "Send: POST /v1/messages/send").
 * The number behind it is unknown; a chat started from it is answered to it.
 */
export const LID_JID_PATTERN = "^[0-9]{6,20}@lid$"
/** What a send or presence may name as `to`: a number, a group, or a hidden number. */
export const RECIPIENT_PATTERN = `(${E164_PATTERN})|(${GROUP_JID_PATTERN})|(${LID_JID_PATTERN})`

const e164 = new RegExp(E164_PATTERN)
const lidJid = new RegExp(LID_JID_PATTERN)
const groupJid = new RegExp(GROUP_JID_PATTERN)

export function isE164(value: string): boolean {
  return e164.test(value)
}

export function isGroupJid(value: string): boolean {
  return groupJid.test(value)
}

export function isLidJid(value: string): boolean {
  return lidJid.test(value)
}

/** Counts Unicode code points, so an emoji counts once (docs/decisions.md § "Errors and validation"). */
export function codePointLength(value: string): number {
  let n = 0
  for (const _ of value) n++
  return n
}
