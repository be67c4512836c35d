import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { FetchMedia, MediaDownload } from "../../src/domain/outbound-parts"

/**
 * A `fetchMedia` for picture tests: each URL answers with the file or failure registered for it,
 * written to a temporary file like the real fetcher does (the domain removes it). `removed`
 * tells whether the domain cleaned every file up.
 */
export class PictureFetch {
  readonly dir = mkdtempSync(join(tmpdir(), "wagate-picture-fetch-"))
  readonly answers = new Map<string, { kind: "image" | "document"; bytes: Uint8Array } | (MediaDownload & { ok: false })>()
  readonly asked: string[] = []
  private n = 0

  readonly fetch: FetchMedia = async (url) => {
    this.asked.push(url)
    const answer = this.answers.get(url)
    if (!answer) return { ok: false, errorCode: "media_fetch_failed", message: `no fixture for ${url}` }
    if ("ok" in answer) return answer
    const path = join(this.dir, `f${this.n++}`)
    writeFileSync(path, answer.bytes)
    return { ok: true, media: { kind: answer.kind, path, sizeBytes: answer.bytes.length, mimetype: answer.kind === "image" ? "image/png" : "application/pdf", fileName: "f" } }
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }
}
