import { writeSync } from "node:fs"

/*
 * Writing through process.stdout/process.stderr would load Node's stream and tty machinery,
 * about 15 ms and 10 MiB at start, which is most of what `wagate version` costs beyond Bun's own
 * start. A blocking write to the file descriptor is what Node does for pipes and terminals on
 * Linux anyway, and it cannot be lost when the process exits right after.
 */

/** Pause before retrying a descriptor that a parent left non-blocking and that is full. */
const FULL_RETRY_MS = 1

/** Writes all of `text` to `fd`. A reader that went away (`wagate help | head -1`) ends the output quietly. */
export function writeAll(fd: number, text: string): void {
  let bytes = Buffer.from(text)
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes))
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code === "EPIPE") return
      if (code !== "EAGAIN") throw err
      Bun.sleepSync(FULL_RETRY_MS)
    }
  }
}
