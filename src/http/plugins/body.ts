import { errors } from "../../lib/errors"
import { readAtMost } from "../../lib/streams"
import type { RawBody } from "../validation"

/** Largest accepted request body (docs/decisions.md § "Errors and validation"). */
export const MAX_BODY_BYTES = 64 * 1024

/**
 * Elysia parse hook: reads the body as text, at most MAX_BODY_BYTES (413 beyond, whether the
 * length was declared or not), and leaves JSON parsing to the route, after authentication.
 */
export async function readRawBody({ request, contentType }: { request: Request; contentType: string }): Promise<RawBody> {
  const length = request.headers.get("content-length")
  // No header means a body of unknown length (chunked): Number(null) would read as 0.
  const declared = length === null ? Number.NaN : Number(length)
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) throw errors.payloadTooLarge(MAX_BODY_BYTES)
  if (!request.body) return { text: "", contentType }
  // A declared length within the cap is read in one go (streaming costs more per request);
  // only a body of unknown length is counted while it streams.
  if (Number.isFinite(declared)) {
    const text = await request.text()
    if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw errors.payloadTooLarge(MAX_BODY_BYTES)
    return { text, contentType }
  }
  const { bytes, exceeded } = await readAtMost(request.body, MAX_BODY_BYTES)
  if (exceeded) throw errors.payloadTooLarge(MAX_BODY_BYTES)
  return { text: Buffer.from(bytes).toString("utf8"), contentType }
}
