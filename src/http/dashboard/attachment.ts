import type { InboundMediaFile } from "../../domain/inbound-media"
import { contentDisposition } from "../routes/v1/inbound-media"
import { SECURITY_HEADERS } from "./respond"

/*
 * An attachment's bytes for a signed-in operator (docs/dashboard.md): a received message's on its
 * own page, and any message's in the Chats page (received, sent from the phone, from history).
 */

/** Image types a browser may show inline; every other attachment is served as a download. */
export const INLINE_IMAGES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"])

/** The response serving `file`: an image inline, anything else as a download, never run in this origin. */
export function attachmentResponse(file: InboundMediaFile): Response {
  const disposition = INLINE_IMAGES.has(file.mimetype) ? contentDisposition(file.fileName, file.mimetype) : contentDisposition(file.fileName, "application/octet-stream")
  return new Response(Bun.file(file.path), {
    headers: {
      ...SECURITY_HEADERS,
      // A sender's file never runs in this origin: no script even if a browser were told to render it.
      "Content-Security-Policy": "default-src 'none'; img-src 'self'; sandbox",
      "Content-Type": file.mimetype,
      "Content-Disposition": disposition,
      "Content-Length": String(file.sizeBytes),
      "Cache-Control": "private, no-store",
    },
  })
}
