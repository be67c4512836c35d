/*
 * What a reaction may be: exactly one emoji. "One" is one grapheme cluster as Unicode segments
 * text (Intl.Segmenter), so a flag (two regional indicators), a keycap, a skin tone or a family
 * joined by ZWJ counts once, as WhatsApp shows it; "emoji" is a cluster with a pictographic
 * character, a regional indicator or a keycap in it, so letters, digits and punctuation are not.
 */

const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" })
const EMOJI_CHARACTER = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u
/** A bound on the text segmented: the longest ZWJ sequences are far shorter. */
const MAX_EMOJI_UTF16 = 64

/** True when `text` is exactly one emoji (one grapheme cluster holding an emoji character). */
export function isSingleEmoji(text: string): boolean {
  if (text.length === 0 || text.length > MAX_EMOJI_UTF16) return false
  let count = 0
  for (const _ of segmenter.segment(text)) if (++count > 1) return false
  return EMOJI_CHARACTER.test(text)
}
