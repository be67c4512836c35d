import { createHash, randomBytes } from "node:crypto"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { BinaryNode } from "@whiskeysockets/baileys"
import type { TlsCertificate } from "./media-cert"

/** One stored media file, uploaded by Baileys or put there by a simulated contact. */
export interface StoredMedia {
  directPath: string
  url: string
  /** The encrypted file exactly as uploaded. */
  file: Uint8Array
}

/** Bytes a single upload may have, advertised in `media_conn`. */
const MAX_UPLOAD_BYTES = 100 * 1024 * 1024

/** The upload token Baileys puts in the path: base64 of the file's SHA-256, URL-safe, unpadded. */
function uploadToken(file: Uint8Array): string {
  return createHash("sha256").update(file).digest("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

/**
 * The HTTPS media host (`mmg.whatsapp.net` in real life) on 127.0.0.1. Clients learn its
 * address and an auth token from the `w:m/set/media_conn` IQ, `POST /mms/<kind>/<token>?auth=…`
 * the encrypted file and get `{url, direct_path}` back; recipients `GET` the direct path.
 *
 * Uploads are checked like the real host would: the auth token must match and the token in the
 * path must be the file's hash, so a corrupted or truncated upload fails at upload time.
 */
export class MediaHost {
  /** The auth token handed out in `media_conn`. */
  readonly auth = randomBytes(16).toString("hex")
  private readonly files = new Map<string, StoredMedia>()
  /** Direct paths the host no longer serves, with the status it answers instead (WhatsApp's CDN: 404 or 410). */
  private readonly expired = new Map<string, 404 | 410>()
  private nextFileNumber = 1

  private constructor(
    private readonly server: ReturnType<typeof Bun.serve>,
    private readonly certificate: TlsCertificate,
    private readonly caDir: string,
    /** A PEM file holding the host's certificate, for `NODE_EXTRA_CA_CERTS` of child processes. */
    readonly caPath: string,
    /** `fetch` that trusts this host's certificate (a Bun `FetchSession`). */
    readonly fetch: (input: string | URL | Request, init?: BunFetchRequestInit) => Promise<Response>,
    private readonly session: Bun.FetchSession,
  ) {}

  static async start(certificate: TlsCertificate): Promise<MediaHost> {
    const caDir = await mkdtemp(join(tmpdir(), "wa-sim-ca-"))
    const caPath = join(caDir, "media-ca.pem")
    await writeFile(caPath, certificate.certPem)
    let host: MediaHost | undefined
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert: certificate.certPem, key: certificate.keyPem },
      fetch: (request) => host!.handle(request),
    })
    const session = new Bun.FetchSession({ tls: { ca: certificate.certPem } })
    host = new MediaHost(server, certificate, caDir, caPath, session.fetch, session)
    return host
  }

  /** `127.0.0.1:port`, the hostname clients are told to upload to. */
  get hostname(): string {
    return `127.0.0.1:${this.server.port}`
  }

  /** `https://127.0.0.1:port`, for matching requests bound to this host. */
  get origin(): string {
    return `https://${this.hostname}`
  }

  /** The host's certificate (self-signed, so it is its own CA). */
  get caPem(): string {
    return this.certificate.certPem
  }

  /** Every stored file, in upload order. */
  get stored(): StoredMedia[] {
    return [...this.files.values()]
  }

  /** The answer to `w:m/set/media_conn`. */
  mediaConnNode(): BinaryNode {
    return {
      tag: "media_conn",
      attrs: { auth: this.auth, ttl: "3600", auth_ttl: "3600", max_buckets: "1" },
      content: [{ tag: "host", attrs: { hostname: this.hostname, maxContentLengthBytes: String(MAX_UPLOAD_BYTES) } }],
    }
  }

  /** Stores an encrypted file directly (what a contact's own upload would have done). */
  put(file: Uint8Array): StoredMedia {
    const directPath = `/v/sim/${this.nextFileNumber++}.enc`
    const stored: StoredMedia = { directPath, url: `${this.origin}${directPath}`, file }
    this.files.set(directPath, stored)
    return stored
  }

  /** The host stops serving a file, as WhatsApp's CDN does once media is old: GET answers `status`. */
  expire(directPath: string, status: 404 | 410): void {
    this.expired.set(directPath, status)
  }

  /** Downloads a file over HTTPS from this host, as a recipient would. */
  async download(urlOrDirectPath: string): Promise<Uint8Array> {
    const url = urlOrDirectPath.startsWith("/") ? `${this.origin}${urlOrDirectPath}` : urlOrDirectPath
    if (new URL(url).origin !== this.origin) throw new Error(`media URL ${url} is not on the simulated media host`)
    const response = await this.fetch(url)
    if (!response.ok) throw new Error(`media download ${url} failed with HTTP ${response.status}`)
    return new Uint8Array(await response.arrayBuffer())
  }

  async stop(): Promise<void> {
    this.session.close()
    await this.server.stop(true)
    await rm(this.caDir, { recursive: true, force: true })
  }

  private async handle(request: Request): Promise<Response> {
    const url = new URL(request.url)
    if (request.method === "POST" && url.pathname.startsWith("/mms/")) {
      if (url.searchParams.get("auth") !== this.auth) return Response.json({ error: "bad auth" }, { status: 401 })
      const file = new Uint8Array(await request.arrayBuffer())
      const token = url.pathname.split("/").at(-1)
      if (token !== uploadToken(file)) return Response.json({ error: "token does not match the uploaded bytes" }, { status: 400 })
      const stored = this.put(file)
      return Response.json({ url: stored.url, direct_path: stored.directPath })
    }
    if (request.method === "GET") {
      const gone = this.expired.get(url.pathname)
      if (gone) return new Response(gone === 410 ? "gone" : "not found", { status: gone })
      const stored = this.files.get(url.pathname)
      return stored ? new Response(new Uint8Array(stored.file)) : new Response("not found", { status: 404 })
    }
    return new Response("not found", { status: 404 })
  }
}
