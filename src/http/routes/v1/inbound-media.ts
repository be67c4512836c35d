import { Type } from "@sinclair/typebox"
import { inboundMediaFile, type InboundMediaFile } from "../../../domain/inbound-media"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"

const InboundIdParams = Type.Object({ messageId: Type.String({ examples: ["inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }) })

/**
 * A Content-Disposition that every client reads: an ASCII `filename` (anything else replaced)
 * and the exact name as RFC 8187 UTF-8 in `filename*`. Images are shown inline, anything else is
 * an attachment, so a browser never renders a customer's HTML or SVG in our origin.
 */
export function contentDisposition(fileName: string, mimetype: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\%]/g, "_")
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  const inline = /^image\/(jpeg|png|gif|webp)$/.test(mimetype)
  return `${inline ? "inline" : "attachment"}; filename="${ascii}"; filename*=UTF-8''${encoded}`
}

/** Serves a media file (an inbound or timeline attachment) with its type, name and length. */
export function serveMediaFile(file: InboundMediaFile, request: Request, set: { headers: Record<string, string | number> }) {
  Object.assign(set.headers, {
    "Content-Type": file.mimetype,
    "Content-Disposition": contentDisposition(file.fileName, file.mimetype),
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, max-age=0, no-store",
  })
  // Bun would set it while sending; set here it is also on the Response itself. A Range
  // request's 206 carries the length of its range instead.
  if (!request.headers.has("range")) set.headers["Content-Length"] = String(file.sizeBytes)
  // Returned as the file itself, so Elysia hands it to Bun as a file: Bun sends it with
  // sendfile, and a Range request gets its 206. Wrapping it in a
  // Response would make Elysia copy the body into a stream read through JavaScript.
  return Bun.file(file.path)
}

/** The OpenAPI success of a media route: the file itself, not an envelope. */
export const MEDIA_FILE_SUCCESS = {
  status: 200,
  contentType: "application/octet-stream",
  schema: Type.String({ format: "binary", description: "The file; Content-Type is its type, Content-Disposition its name." }),
  description: "The media's bytes",
} as const

/** GET /v1/messages/inbound/{messageId}/media */
export const inboundMedia = (deps: HttpDeps) => (app: ApiApp) =>
  app.get(
    "/messages/inbound/:messageId/media",
    async ({ params, principal, request, set }) => {
      return serveMediaFile(await inboundMediaFile(deps.ctx, deps.inboundMedia, principal, params.messageId), request, set)
    },
    {
      ...apiOperation({
        operationId: "getInboundMessageMedia",
        scopes: REQUIRED_SCOPES.messagesRead,
        tag: "Inbound messages",
        summary: "Download an inbound message's media",
        description:
          "The attachment's bytes, downloaded from WhatsApp on the first request and then served from wagate's cache " +
          "(`WAGATE_MEDIA_CACHE_MB`). Live keys: the receiving phone must be connected for the first download. " +
          "When WhatsApp no longer has the file, the sender's phone is asked once to upload it again; if it does not, `410`. " +
          "Test keys: the sandbox receives nothing, so `404`.",
        path: InboundIdParams,
        success: MEDIA_FILE_SUCCESS,
        errors: [400, 401, 403, 404, 409, 410, 429, 502, 503],
      }),
    },
  )
