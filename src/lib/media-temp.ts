import { mkdirSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { DATA_DIR_MODE } from "./data-dir"

/** The folder inside the data directory that holds media downloads while they are sent. */
export const MEDIA_TEMP_FOLDER = "tmp"
/** Every file the media fetcher writes starts with this, so a clean-up never touches anything else. */
export const MEDIA_TEMP_PREFIX = "media-"

/**
 * The folder live sends download media into (mode 0700, like the data directory it lives in:
 * the files are customers' documents). Made on the first download, so a server without live
 * sends never creates it.
 */
export function mediaTempDir(dataDir: string): string {
  const dir = join(dataDir, MEDIA_TEMP_FOLDER)
  mkdirSync(dir, { recursive: true, mode: DATA_DIR_MODE })
  return dir
}

/**
 * Removes the media files a crashed process left behind: a download is only ever in use by the
 * process that made it, and at start no send is running yet. Returns how many were removed.
 */
export function clearMediaTemp(dataDir: string): number {
  let entries: string[]
  try {
    entries = readdirSync(join(dataDir, MEDIA_TEMP_FOLDER))
  } catch {
    return 0
  }
  let removed = 0
  for (const name of entries) {
    if (!name.startsWith(MEDIA_TEMP_PREFIX)) continue
    rmSync(join(dataDir, MEDIA_TEMP_FOLDER, name), { force: true })
    removed++
  }
  return removed
}

/**
 * Removes downloaded files once their send is over; a file already gone is not an error. It is
 * synchronous on purpose: an unlink is one short system call, and the send's next step (failing
 * the message, or the next job) then never runs while the file is still there.
 */
export function discardFiles(paths: Iterable<string>): void {
  for (const path of paths) {
    try {
      rmSync(path, { force: true })
    } catch {
      // A file that cannot be removed (its folder vanished) is not the send's failure.
    }
  }
}
