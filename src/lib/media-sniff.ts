import { fileTypeFromBlob, fileTypeFromBuffer } from "file-type/core"

/**
 * The WhatsApp message kinds a downloaded file can become. Kept identical to the gateway's
 * `MediaKind` (src/whatsapp/gateway.ts); it is repeated here because src/lib may not import the
 * whatsapp layer.
 */
export type MediaKind = "image" | "video" | "audio" | "document"

/** What the bytes of a file are, decided by their content and never by a server's header. */
export interface SniffedType {
  kind: MediaKind
  mimetype: string
  /** Extension without the dot, used when no file name is known. */
  ext: string
}

/** A sniff either names the type or says, in a sentence for the API client, why the file is refused. */
export type SniffResult = { ok: true; type: SniffedType } | { ok: false; message: string }

/**
 * How many leading bytes the early sniff needs. file-type reads at most about 4 KiB for the
 * signatures we care about, so this is enough to know the kind (and thus the size cap) long before
 * a large file has finished downloading.
 */
export const SNIFF_HEAD_BYTES = 8192

/** file-type MIME → the WhatsApp image mimetype. Only these four render as WhatsApp images. */
const IMAGE_MIMES = new Set(["image/jpeg", "image/png", "image/webp", "image/gif"])

/** file-type MIME → the mimetype WhatsApp expects for a video message. */
const VIDEO_MIMES: Record<string, string> = {
  "video/mp4": "video/mp4",
  "video/x-m4v": "video/mp4",
  "video/3gpp": "video/3gpp",
  "video/quicktime": "video/quicktime",
}

/** file-type MIME → the mimetype WhatsApp expects for an audio message. */
const AUDIO_MIMES: Record<string, string> = {
  "audio/ogg; codecs=opus": "audio/ogg; codecs=opus",
  "audio/opus": "audio/ogg; codecs=opus",
  "audio/ogg": "audio/ogg",
  "audio/mpeg": "audio/mpeg",
  "audio/x-m4a": "audio/mp4",
  "audio/mp4": "audio/mp4",
  "audio/aac": "audio/aac",
  "audio/amr": "audio/amr",
  "audio/wav": "audio/wav",
  "audio/vnd.wave": "audio/wav",
  "audio/x-wav": "audio/wav",
}

/** Text mimetypes by file extension, for a text body whose server named no text type; the default is text/plain. */
const TEXT_MIMES_BY_EXT: Record<string, string> = {
  txt: "text/plain",
  text: "text/plain",
  log: "text/plain",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  json: "application/json",
  md: "text/markdown",
  markdown: "text/markdown",
  xml: "application/xml",
  ics: "text/calendar",
  vcf: "text/vcard",
  srt: "application/x-subrip",
  vtt: "text/vtt",
  yaml: "application/yaml",
  yml: "application/yaml",
}

const HTML_MIMES = new Set(["text/html", "application/xhtml+xml"])

/** Extension for a text mimetype, for the `file.<ext>` fallback name. */
function textExt(mimetype: string): string {
  for (const [ext, mime] of Object.entries(TEXT_MIMES_BY_EXT)) if (mime === mimetype) return ext
  return "txt"
}

/**
 * True when the sample looks like text: no NUL byte and no C0 control character other than tab,
 * newlines, form feed and escape. Legacy 8-bit encodings (a Windows-1252 CSV) pass too, because
 * UTF-8 validity is not required; UTF-16 text has NULs and is treated as binary.
 */
export function looksLikeText(sample: Uint8Array): boolean {
  for (const byte of sample) {
    if (byte === 0) return false
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d && byte !== 0x1b) return false
    if (byte === 0x7f) return false
  }
  return true
}

/** The text of a sample without a UTF-8 BOM, decoded leniently (only the markup matters). */
function textHead(sample: Uint8Array): string {
  const start = sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf ? 3 : 0
  return new TextDecoder("utf-8", { fatal: false }).decode(sample.subarray(start, start + 2048))
}

const HTML_START =
  /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body|script|meta|title|link|style|iframe|frameset|noscript|div|p|a|table|form|h1|br)(?=[\s>/])/i
const SVG_START = /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!doctype\s+svg[^>]*>\s*)?<svg(?=[\s>])/i

/** True when text starts like a web page: the classic mistake of passing a page's URL instead of the file's. */
export function looksLikeHtml(text: string): boolean {
  return HTML_START.test(text)
}

/** Lower-case media type of a Content-Type header without parameters ("text/csv; charset=x" → "text/csv"). */
export function baseMimetype(contentType: string | undefined): string | undefined {
  const base = contentType?.split(";")[0]?.trim().toLowerCase()
  return base ? base : undefined
}

/** Lower-case extension of a file name, without the dot, or undefined. */
export function extensionOf(fileName: string | undefined): string | undefined {
  const match = fileName ? /\.([A-Za-z0-9]{1,10})$/.exec(fileName) : null
  return match?.[1]?.toLowerCase()
}

/**
 * Decides what a downloaded file is from its bytes. The kind comes only from the content
 * (file-type's magic numbers, or a text check), because a server's Content-Type is often wrong
 * and a client could otherwise make us send, say, an HTML page as an "image". `contentType` and
 * `fileName` only refine the mimetype of plain text (CSV versus text) and confirm HTML.
 *
 * The fetcher calls this twice: on the first bytes, to learn the kind (and so the size cap) early,
 * and on the whole body for the final answer (`bytes` is then the head and `whole` the file on
 * disk). A magic-number match does not change between the two; a container's type may only
 * become more precise (a zip found to be a .docx).
 */
export async function sniffMedia(
  bytes: Uint8Array,
  hints: { contentType?: string; fileName?: string; whole?: Blob } = {},
): Promise<SniffResult> {
  if (bytes.length === 0) return { ok: false, message: "the URL returned an empty body, not a file" }
  let detected: { ext: string; mime: string } | undefined
  try {
    // A file on disk is read lazily, as deep as file-type needs (a zip's entries), never whole.
    detected = hints.whole === undefined ? await fileTypeFromBuffer(bytes) : await fileTypeFromBlob(hints.whole)
  } catch {
    // A truncated or malformed container makes file-type throw; treat it as unrecognised.
    detected = undefined
  }
  const head = bytes.subarray(0, SNIFF_HEAD_BYTES)
  const declared = baseMimetype(hints.contentType)

  if (detected === undefined || detected.mime === "application/xml") {
    if (detected !== undefined || looksLikeText(head)) {
      const text = textHead(head)
      if (looksLikeHtml(text) || (declared !== undefined && HTML_MIMES.has(declared))) {
        return { ok: false, message: "the URL returned a web page (HTML), not a file; link to the file itself" }
      }
      if (SVG_START.test(text)) return { ok: true, type: { kind: "document", mimetype: "image/svg+xml", ext: "svg" } }
      if (detected !== undefined) return { ok: true, type: { kind: "document", mimetype: detected.mime, ext: detected.ext } }
      const byExt = TEXT_MIMES_BY_EXT[extensionOf(hints.fileName) ?? ""]
      const textual = declared !== undefined && (declared.startsWith("text/") || Object.values(TEXT_MIMES_BY_EXT).includes(declared))
      const mimetype = textual ? declared : (byExt ?? "text/plain")
      const fileExt = extensionOf(hints.fileName)
      const ext = fileExt !== undefined && byExt === mimetype ? fileExt : textExt(mimetype)
      return { ok: true, type: { kind: "document", mimetype, ext } }
    }
    return { ok: true, type: { kind: "document", mimetype: "application/octet-stream", ext: "bin" } }
  }

  const mime = detected.mime
  if (IMAGE_MIMES.has(mime)) return { ok: true, type: { kind: "image", mimetype: mime, ext: detected.ext } }
  const video = VIDEO_MIMES[mime]
  if (video !== undefined) return { ok: true, type: { kind: "video", mimetype: video, ext: detected.ext === "m4v" ? "mp4" : detected.ext } }
  const audio = AUDIO_MIMES[mime]
  if (audio !== undefined) return { ok: true, type: { kind: "audio", mimetype: audio, ext: detected.ext } }
  return { ok: true, type: { kind: "document", mimetype: mime, ext: detected.ext } }
}

const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069<>:"|?*]/g
const MAX_FILE_NAME_CHARS = 120

/**
 * Makes a name someone else supplied safe to show as a WhatsApp document name: only the last path
 * segment, no control or bidi-override characters (which can disguise "exe.pdf" as "fdp.exe"), no
 * characters Windows forbids, no leading dots, at most 120 characters with the extension kept.
 * Returns undefined when nothing usable is left.
 */
export function sanitizeFileName(raw: string): string | undefined {
  let name = raw.normalize("NFC").replace(/\\/g, "/")
  name = name.slice(name.lastIndexOf("/") + 1)
  name = name.replace(UNSAFE_CHARS, "_").replace(/\s+/g, " ")
  name = name.replace(/^[\s.]+/, "").replace(/[\s.]+$/, "")
  if (name === "" || /^_+$/.test(name)) return undefined
  const chars = Array.from(name)
  if (chars.length > MAX_FILE_NAME_CHARS) {
    const ext = extensionOf(name)
    const suffix = ext ? `.${ext}` : ""
    name = chars.slice(0, MAX_FILE_NAME_CHARS - suffix.length).join("").replace(/[\s.]+$/, "") + suffix
  }
  return name
}

/**
 * The file name a Content-Disposition header suggests, preferring the RFC 6266 `filename*`
 * (percent-encoded UTF-8) form over the plain `filename`. Returns the raw name, unsanitised.
 */
export function contentDispositionFileName(header: string | undefined): string | undefined {
  if (!header) return undefined
  const extended = /(?:^|;)\s*filename\*\s*=\s*([^';\s]*)'[^']*'([^;\s]+)/i.exec(header)
  if (extended) {
    try {
      const charset = extended[1]!.toLowerCase()
      const value = extended[2]!
      if (charset === "utf-8" || charset === "") return decodeURIComponent(value)
      if (charset === "iso-8859-1") return value.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    } catch {
      // A malformed escape falls through to the plain filename parameter.
    }
  }
  const quoted = /(?:^|;)\s*filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header)
  if (quoted) return quoted[1]!.replace(/\\(.)/g, "$1")
  const token = /(?:^|;)\s*filename\s*=\s*([^";\s][^;]*)/i.exec(header)
  return token?.[1]?.trim()
}

/** The decoded last non-empty path segment of a URL, or undefined. */
function lastPathSegment(url: string): string | undefined {
  let pathname: string
  try {
    pathname = new URL(url).pathname
  } catch {
    return undefined
  }
  const segment = pathname.split("/").filter(Boolean).pop()
  if (segment === undefined) return undefined
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * Chooses the document name WhatsApp shows: the Content-Disposition filename when present and
 * safe, else the last path segment of one of `urls` (the first that has an extension, so a
 * redirect to an opaque CDN key keeps the name the client linked to), else `file.<ext>`. A name
 * without an extension gets the sniffed one, so the recipient's phone can open it.
 */
export function chooseFileName(contentDisposition: string | undefined, urls: readonly string[], ext: string): string {
  const fromHeader = contentDisposition ? sanitizeFileName(contentDispositionFileName(contentDisposition) ?? "") : undefined
  const fromUrls = urls.map((u) => sanitizeFileName(lastPathSegment(u) ?? "")).filter((n): n is string => n !== undefined)
  const name = fromHeader ?? fromUrls.find((n) => extensionOf(n) !== undefined) ?? fromUrls[0]
  if (name === undefined) return `file.${ext}`
  return extensionOf(name) === undefined ? `${name}.${ext}` : name
}
