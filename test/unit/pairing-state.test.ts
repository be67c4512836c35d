import { describe, expect, test } from "bun:test"
import { stateOf } from "../../src/domain/pairing-state"
import { phone } from "../store/contract/fixtures"

/*
 * The pairing state's WhatsApp Web version and client expiry (docs/live-whatsapp.md § "Client
 * expiration"): the socket's node knows the version being announced now; the phone's row keeps
 * the last one and the expiry, so a restart, another node and `wagate doctor` see them.
 */

describe("the version and client expiry on a phone's pairing state", () => {
  const row = phone({ connectionStatus: "connected", waVersion: "2.3000.1", clientExpiresAtMs: 1_796_860_800_000 })

  test("with nothing known in memory (after a restart, on a node that heard nothing), the row's version and expiry show", () => {
    expect(stateOf(row, undefined)).toMatchObject({ waVersion: "2.3000.1", clientExpiresAtMs: 1_796_860_800_000 })
    expect(stateOf(row, null)).toMatchObject({ waVersion: "2.3000.1", clientExpiresAtMs: 1_796_860_800_000 })
  })

  test("the version a connect announces right now wins over the row's", () => {
    expect(stateOf(row, { qr: null, pairingCode: null, waVersion: "2.3000.2" }).waVersion).toBe("2.3000.2")
  })

  test("a phone that never connected has neither", () => {
    expect(stateOf(phone(), undefined)).toMatchObject({ waVersion: null, clientExpiresAtMs: null })
  })
})
