import { describe, test } from "bun:test"
import { existsSync } from "node:fs"
import { chromium, type Browser } from "playwright-core"

/** Debian's Chromium, driven by playwright-core (no browser download). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/** True when the browser tests can run here. */
export const browserAvailable = existsSync(CHROMIUM_PATH)

/**
 * Registers a browser test suite. Without Chromium it is left out with a one-line notice, except
 * under CI=true, where a missing browser is a failure (CI must run these tests).
 */
export function describeInBrowser(name: string, body: () => void): void {
  if (browserAvailable) {
    describe(name, body)
    return
  }
  const hint = `${CHROMIUM_PATH} not found; install it with: apt-get install chromium`
  if (process.env.CI === "true") {
    describe(name, () => {
      test("Chromium is installed (required under CI=true)", () => {
        throw new Error(hint)
      })
    })
    return
  }
  console.warn(`[browser tests skipped] ${name}: ${hint}`)
}

/** Launches headless Chromium. `--no-sandbox` because CI and this machine run tests as root. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] })
}
