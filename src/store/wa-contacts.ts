/** One sender of one phone, with the identities and names last seen. */
export interface WaContactRow {
  phoneId: string
  /** The sender as wagate records it: E.164, or the `…@lid` JID when WhatsApp hid the number. */
  address: string
  /** Its LID (`…@lid`) when WhatsApp named it. */
  lid: string | null
  /** Its number (E.164) when known. */
  phoneNumber: string | null
  /** Its WhatsApp username (bounded, validated) when a stanza carried one. */
  username: string | null
  /** The name it gave itself (`notify`), made safe. */
  pushName: string | null
  updatedAtMs: number
}
