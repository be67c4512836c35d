/*
 * The pure parts of wagate's answers to late-2026 WhatsApp: deliveries taken off the wire
 * (raw-receipts.ts), a privacy token's rolling window and how a 463 is named (privacy-token.ts),
 * and the errorMessage each 463 case gets (message-receipts.ts). The live behaviour is tested
 * against the simulator in test/e2e-live/offline-*.test.ts.
 */
import { describe, expect, test } from "bun:test"
import { rejectionMessage } from "../../src/domain/message-receipts"
import { PrivacyTokenLedger, privacyTokenLive } from "../../src/whatsapp/baileys/privacy-token"
import { mapRawDeliveryReceipt, type ReceiptNode } from "../../src/whatsapp/baileys/raw-receipts"
import type { PartRejection } from "../../src/whatsapp/gateway"

const NOW_MS = Date.UTC(2026, 10, 25, 12, 0, 0)
const T = String(Math.floor(NOW_MS / 1000) - 60)
const SELF = { id: "15550001111:1@s.whatsapp.net", lid: "100000000000001:1@lid" }

describe("deliveries off the wire", () => {
  test.each<[string, ReceiptNode, string[]]>([
    ["a 1:1 delivery", { tag: "receipt", attrs: { from: "15550002222@s.whatsapp.net", id: "A", t: T } }, ["A"]],
    ["from another device of the contact", { tag: "receipt", attrs: { from: "15550002222:1@s.whatsapp.net", id: "A", t: T } }, ["A"]],
    ["from a LID", { tag: "receipt", attrs: { from: "200000000000002@lid", id: "A", t: T } }, ["A"]],
    ["a group member's delivery", { tag: "receipt", attrs: { from: "120363000000000001@g.us", participant: "15550002222@s.whatsapp.net", id: "G", t: T } }, ["G"]],
    [
      "several ids in a list",
      { tag: "receipt", attrs: { from: "15550002222@s.whatsapp.net", id: "A", t: T }, content: [{ tag: "list", attrs: {}, content: [{ tag: "item", attrs: { id: "B" } }, { tag: "item", attrs: { id: "A" } }] }] },
      ["A", "B"],
    ],
    ["a read receipt (Baileys reports it)", { tag: "receipt", attrs: { from: "15550002222@s.whatsapp.net", id: "A", t: T, type: "read" } }, []],
    ["a retry receipt", { tag: "receipt", attrs: { from: "15550002222@s.whatsapp.net", id: "A", t: T, type: "retry" } }, []],
    ["from our own other device", { tag: "receipt", attrs: { from: "15550001111:2@s.whatsapp.net", recipient: "15550002222@s.whatsapp.net", id: "A", t: T } }, []],
    ["from our own LID", { tag: "receipt", attrs: { from: "100000000000001:2@lid", id: "A", t: T } }, []],
    ["not a receipt", { tag: "ack", attrs: { from: "15550002222@s.whatsapp.net", id: "A" } }, []],
  ])("%s", (_name, node, ids) => {
    const signals = mapRawDeliveryReceipt(node, SELF, NOW_MS)
    expect(signals.map((signal) => (signal.kind === "receipt" ? [signal.waMessageId, signal.receipt, signal.atMs] : signal.kind))).toEqual(
      ids.map((id) => [id, "delivered", Number(T) * 1000]),
    )
  })

  test("a receipt dated after now counts as now", () => {
    const node: ReceiptNode = { tag: "receipt", attrs: { from: "15550002222@s.whatsapp.net", id: "A", t: String(Math.floor(NOW_MS / 1000) + 3600) } }
    expect(mapRawDeliveryReceipt(node, SELF, NOW_MS)).toEqual([{ kind: "receipt", waMessageId: "A", receipt: "delivered", atMs: NOW_MS }])
  })
})

describe("privacy tokens and error 463", () => {
  const WEEK_S = 604_800
  const nowS = Math.floor(NOW_MS / 1000)
  const bucketStartS = Math.floor(nowS / WEEK_S) * WEEK_S
  test.each<[string, string | number | undefined, boolean]>([
    ["stamped now", nowS, true],
    ["as a string", String(nowS), true],
    ["at the start of the oldest of four weekly buckets", bucketStartS - 3 * WEEK_S, true],
    ["a second before it", bucketStartS - 3 * WEEK_S - 1, false],
    ["without a time", undefined, false],
    ["with a time that is not a number", "soon", false],
  ])("a token %s is live: %p", (_name, stamp, live) => {
    expect(privacyTokenLive(stamp, NOW_MS)).toBe(live)
  })

  const R463: PartRejection = { code: "account_restricted", detail: "463" }
  test.each<[string, boolean | undefined, PartRejection]>([
    ["sent without a token → privacy_token_missing", false, { code: "privacy_token_missing", detail: "463", privacyTokenAttached: false }],
    ["sent with the token → account_restricted, attached", true, { code: "account_restricted", detail: "463", privacyTokenAttached: true }],
    ["not recorded (before a restart) → account_restricted, unknown", undefined, R463],
  ])("a 463 %s", (_name, attached, expected) => {
    const ledger = new PrivacyTokenLedger()
    if (attached !== undefined) ledger.note("X", attached)
    expect(ledger.refine(R463, "X")).toEqual(expected)
  })

  test("other refusals are left alone, and the ledger forgets the oldest sends first", () => {
    const ledger = new PrivacyTokenLedger()
    ledger.note("X", false)
    expect(ledger.refine({ code: "whatsapp_rejected", detail: "479" }, "X")).toEqual({ code: "whatsapp_rejected", detail: "479" })
    for (let n = 0; n < 2_000; n++) ledger.note(`later-${n}`, true)
    expect(ledger.refine(R463, "X")).toEqual(R463)
    expect(ledger.refine(R463, "later-1999").code).toBe("account_restricted")
  })

  test.each<[PartRejection, string]>([
    [{ code: "privacy_token_missing", detail: "463", privacyTokenAttached: false }, "no privacy token"],
    [{ code: "account_restricted", detail: "463", privacyTokenAttached: true }, "privacy token was attached"],
    [{ code: "account_restricted", detail: "463" }, "did not record which"],
    [{ code: "whatsapp_rejected", detail: "479" }, "rejected the message (error 479)"],
  ])("errorMessage of %o says what is known", (rejection, phrase) => {
    const message = rejectionMessage(rejection)
    expect(message).toContain(phrase)
    expect(message).toContain(`error ${rejection.detail}`)
  })
})
