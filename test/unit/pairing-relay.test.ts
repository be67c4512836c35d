import { describe, expect, test } from "bun:test"
import { decodePairing, encodePairing, MAX_PAIRING_PAYLOAD_BYTES } from "../../src/domain/pairing-relay"
import type { PairingState } from "../../src/domain/pairing-state"

const state = (patch: Partial<PairingState> = {}): PairingState => ({
  connectionStatus: "pairing",
  qr: "2@ref,noise,identity,adv",
  pairingCode: null,
  lastError: null,
  waVersion: "2.3000.1",
  offlineWatchdogAtMs: null,
  clientExpiresAtMs: null,
  updatedAtMs: 1,
  ...patch,
})

describe("pairing states between nodes (src/domain/pairing-relay.ts)", () => {
  test("a state crosses as the node, the phone, its status, QR, code and WhatsApp version", () => {
    expect(decodePairing(encodePairing("n1", "ph_1", state()))).toEqual({
      nodeId: "n1",
      phoneId: "ph_1",
      connectionStatus: "pairing",
      qr: "2@ref,noise,identity,adv",
      pairingCode: null,
      waVersion: "2.3000.1",
    })
  })

  test("a state too big for a database notification goes without its QR and code, and stays under the bound", () => {
    const payload = encodePairing("n1", "ph_1", state({ qr: "x".repeat(9_000), pairingCode: "ABCD1234" }))
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(MAX_PAIRING_PAYLOAD_BYTES)
    expect(decodePairing(payload)).toMatchObject({ connectionStatus: "pairing", qr: null, pairingCode: null })
  })

  test("a payload that is not a pairing state is ignored", () => {
    for (const payload of ["", "not json", "null", "[]", '{"nodeId":"n1","phoneId":"ph_1"}', JSON.stringify({ ...JSON.parse(encodePairing("n1", "ph_1", state())), connectionStatus: "owned" }), JSON.stringify({ ...JSON.parse(encodePairing("n1", "ph_1", state())), qr: 7 })]) {
      expect(decodePairing(payload)).toBeNull()
    }
  })
})
