/**
 * Text that comes from outside (a webhook receiver's redirect target, its answer's body, a
 * network error's wording) is stored, logged and printed only through these functions, so a
 * receiver can neither fill the delivery log nor write terminal escape sequences into an
 * operator's terminal or a log viewer.
 */

/** The longest piece of outside text kept, in characters (UTF-16 code units), ellipsis included. */
export const OUTSIDE_TEXT_MAX_CHARS = 256

const ELLIPSIS = "…"
// C0 controls, DEL and C1 controls: every character a terminal may act on instead of printing.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

function escapeOne(char: string): string {
  return NAMED[char] ?? `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`
}

/** The text with every C0/C1 control character written as an escape (`\n`, `\x1b`, `\x9b`). */
export function escapeControls(text: string): string {
  return CONTROL.test(text) ? text.replace(CONTROLS, escapeOne) : text
}

/**
 * Outside text made safe to store and show: control characters escaped, then cut to
 * `maxChars` characters (an ellipsis marks the cut, which never splits an escape or a
 * surrogate pair). Text already made safe comes back unchanged.
 */
export function boundedOutsideText(text: string, maxChars: number = OUTSIDE_TEXT_MAX_CHARS): string {
  // Only the start is looked at, so a 64 KiB answer costs no more than a short one.
  const head = text.length > maxChars * 4 ? text.slice(0, maxChars * 4) : text
  const escaped = escapeControls(head)
  if (escaped.length <= maxChars && head.length === text.length) return escaped
  let out = ""
  for (const codePoint of head) {
    const piece = escapeControls(codePoint)
    if (out.length + piece.length > maxChars - ELLIPSIS.length) break
    out += piece
  }
  return out + ELLIPSIS
}

/** `boundedOutsideText` for a value that may be absent. */
export function boundedOutsideTextOrNull(text: string | null): string | null {
  return text === null ? null : boundedOutsideText(text)
}
