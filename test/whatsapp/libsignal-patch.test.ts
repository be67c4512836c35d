import { afterEach, describe, expect, spyOn, test } from "bun:test"
// libsignal has no type declarations; the test drives its session record as Baileys does.
// @ts-expect-error untyped CommonJS module
import SessionRecord from "libsignal/src/session_record"

/*
 * wagate's patch of libsignal 6.0.0, the Signal implementation Baileys uses (patches/, applied by
 * `bun install`; CONTRIBUTING.md § "The Baileys patch" says how patches are kept). Unpatched,
 * libsignal prints a whole session entry, private ratchet, root and chain keys included, to the
 * console each time a session is opened, closed or dropped (WhiskeySockets/Baileys#888), which
 * a server's journal keeps.
 */

const spies: { mockRestore(): void }[] = []
afterEach(() => {
  for (const spy of spies.splice(0)) spy.mockRestore()
})

/** A session entry as libsignal holds one, with key material the console must never see. */
function sessionEntry(baseKey: string, closed: number) {
  const secret = Buffer.from("a7714625 69ead5da 3f0b5bfa 91d4b4cb".replaceAll(" ", ""), "hex")
  return {
    indexInfo: { baseKey: Buffer.from(baseKey), baseKeyType: 1, closed, used: 1, created: 1, remoteIdentityKey: Buffer.alloc(33) },
    currentRatchet: { ephemeralKeyPair: { pubKey: Buffer.alloc(33), privKey: secret }, rootKey: secret, previousCounter: 0 },
    _chains: {},
  }
}

describe("libsignal patch: no session key material on the console", () => {
  test("opening, closing, closing again and dropping old closed sessions print nothing of a session", () => {
    const printed: unknown[][] = []
    for (const method of ["log", "info", "warn", "error", "debug"] as const) {
      spies.push(spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(args)))
    }
    const record = new SessionRecord()
    const entries = Array.from({ length: 45 }, (_, i) => sessionEntry(`base-${i}`, -1))
    for (const entry of entries) {
      record.closeSession(entry)
      record.closeSession(entry)
      record.sessions[entry.indexInfo.baseKey.toString("base64")] = entry
    }
    record.removeOldSessions()
    record.openSession(entries[44])
    expect(Object.keys(record.sessions).length).toBeLessThan(45)
    const sessionsPrinted = printed.filter((args) => args.some((arg) => typeof arg === "object" && arg !== null))
    expect(sessionsPrinted).toEqual([])
  })
})
