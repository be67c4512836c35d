/**
 * The vCard wagate sends for `contact`
 * (docs/api.md § "Replies, mentions, locations, contact cards and voice notes"). WhatsApp's
 * apps read vCard 3.0 with one `TEL` per number and a `waid` parameter naming the WhatsApp
 * account, which makes the card offer "Message" (Baileys' README builds its example the same
 * way). Text values are escaped as RFC 6350 §3.4 says: a backslash, comma and semicolon get a
 * backslash, a line break becomes `\n`; the structured values (`N`, `ORG`) escape their
 * component separator too. Lines end in CRLF (RFC 6350 §3.2). Lines are not folded: folding is a
 * SHOULD, and WhatsApp's apps read long unfolded lines.
 */

/** The card as the API receives it, after validation. */
export interface ContactCard {
  name: string
  /** E.164 numbers, 1 to 5. */
  phoneNumbers: readonly string[]
  organization?: string
  email?: string
}

/** A text value escaped per RFC 6350 §3.4 (also right for one component of a structured value). */
export function escapeVCardText(value: string): string {
  return value
    .replace(/\\/g, "\\\\")
    .replace(/,/g, "\\,")
    .replace(/;/g, "\\;")
    .replace(/\r\n|\r|\n/g, "\\n")
    // Other control characters have no escape in vCard and would break the line structure.
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "")
}

/** The vCard of a contact card (pure). */
export function buildVCard(card: ContactCard): string {
  const name = escapeVCardText(card.name)
  const lines = ["BEGIN:VCARD", "VERSION:3.0", `N:;${name};;;`, `FN:${name}`]
  if (card.organization !== undefined && card.organization !== "") lines.push(`ORG:${escapeVCardText(card.organization)}`)
  for (const number of card.phoneNumbers) {
    // Validated E.164: a plus and digits, nothing to escape.
    lines.push(`TEL;type=CELL;type=VOICE;waid=${number.slice(1)}:${number}`)
  }
  if (card.email !== undefined && card.email !== "") lines.push(`EMAIL;type=INTERNET:${escapeVCardText(card.email)}`)
  lines.push("END:VCARD")
  return lines.join("\r\n")
}
