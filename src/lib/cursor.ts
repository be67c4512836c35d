import { createHash } from "node:crypto"

/*
 * Opaque page cursors (docs/api.md § "Chats and contacts"): the position as JSON, base64url, with a
 * short digest of it, so a cursor that was edited or cut reads as none this API gave (`400`)
 * rather than as another position. A cursor only ever names a position inside what the key may
 * read already, so the digest guards against mistakes, not against a forger.
 */

const digest = (body: string) => createHash("sha256").update(`wagate-cursor:${body}`).digest("base64url").slice(0, 12)

/** A cursor for `position`. */
export function encodeCursor(position: unknown): string {
  const body = Buffer.from(JSON.stringify(position), "utf8").toString("base64url")
  return `${body}.${digest(body)}`
}

/** The position a cursor names, or null when it is not one `encodeCursor` made. */
export function decodeCursor(cursor: string): unknown {
  const dot = cursor.indexOf(".")
  if (dot <= 0 || cursor.slice(dot + 1) !== digest(cursor.slice(0, dot))) return null
  try {
    return JSON.parse(Buffer.from(cursor.slice(0, dot), "base64url").toString("utf8"))
  } catch {
    return null
  }
}
