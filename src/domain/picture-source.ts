import { readFile, rm } from "node:fs/promises"
import { errors } from "../lib/errors"
import { toProfileJpeg } from "../lib/profile-picture"
import type { Semaphore } from "../lib/semaphore"
import type { FetchMedia } from "./outbound-parts"

/** What a picture route needs to turn a `mediaUrl` into WhatsApp's picture. */
export interface PictureSource {
  /** The SSRF-guarded downloader of live sends (src/lib/media-fetcher.ts), with its size caps. */
  fetchMedia: FetchMedia
  /**
   * One conversion at a time: decoding a large photo holds a few hundred MB for seconds
   * (docs/dependencies.md § "Image conversion (profile and group pictures)"), so concurrent requests wait their turn.
   */
  conversions: Semaphore
}

/**
 * Fetches the image at `mediaUrl` like a send's media (https only, public addresses, the
 * image size cap) and converts it into the 640 × 640 JPEG WhatsApp shows. A URL the policy
 * refuses, a file that is not an image, or a picture over the pixel bound → 400; over the
 * download cap → 413; a server that does not answer → 502. The downloaded file is removed.
 */
export async function pictureFromUrl(source: PictureSource, mediaUrl: string): Promise<Uint8Array> {
  const download = await source.fetchMedia(mediaUrl)
  if (!download.ok) {
    if (download.errorCode === "media_too_large") throw errors.pictureTooLarge(download.message)
    if (download.errorCode === "media_fetch_failed") throw errors.pictureUnfetched(download.message)
    throw errors.pictureRefused(download.message)
  }
  const { path, kind } = download.media
  try {
    if (kind !== "image") throw errors.pictureRefused("the file is not a JPEG, PNG or WebP image")
    const bytes = new Uint8Array(await readFile(path))
    const release = await new Promise<() => void>((granted) => source.conversions.acquire(granted))
    try {
      const converted = await toProfileJpeg(bytes)
      if (!converted.ok) throw errors.pictureRefused(converted.message)
      return converted.jpeg
    } finally {
      release()
    }
  } finally {
    await rm(path, { force: true })
  }
}
