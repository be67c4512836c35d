import { describe, expect, test } from "bun:test"
import { callOutcomeOf } from "../../src/domain/calls"
import { callStageOf, mapCalls, type CallEventLike } from "../../src/whatsapp/baileys/calls"
import type { CallStage } from "../../src/whatsapp/gateway"

/* How a call's steps are read (src/whatsapp/baileys/calls.ts) and how each ends a call (src/domain/calls.ts). */

const NOW = Date.UTC(2026, 0, 5, 12)

describe("a call's outcome", () => {
  test.each<[CallStage, string | null]>([
    ["offered", null],
    ["accepted_elsewhere", "answered_elsewhere"],
    ["rejected", "rejected"],
    ["timed_out", "missed"],
    ["terminated", "missed"],
  ])("%s ends the call as %s", (stage, outcome) => {
    expect(callOutcomeOf(stage)).toBe(outcome as ReturnType<typeof callOutcomeOf>)
  })
})

describe("Baileys' call statuses", () => {
  test.each<[string, CallStage | null]>([
    ["offer", "offered"],
    ["accept", "accepted_elsewhere"],
    ["reject", "rejected"],
    ["timeout", "timed_out"],
    ["terminate", "terminated"],
    ["ringing", null],
    ["preaccept", null],
    ["transport", null],
    ["relaylatency", null],
  ])("%s is %s", (status, stage) => {
    expect(callStageOf(status)).toBe(stage)
  })
})

describe("mapping Baileys' call events", () => {
  const event = (over: Partial<CallEventLike> = {}): CallEventLike => ({
    id: "9A1F3C6E2B7D4E80A5C3B1D2E4F60718",
    from: "14155550166:0@s.whatsapp.net",
    status: "offer",
    date: new Date(NOW - 2_000),
    isVideo: true,
    isGroup: false,
    ...over,
  })
  const noPn = async () => null

  test.each([
    { name: "a number JID", over: {}, pnForLid: noPn, from: "+14155550166" },
    { name: "a LID with caller_pn", over: { from: "1234567890123:0@lid", callerPn: "14155550177@s.whatsapp.net" }, pnForLid: noPn, from: "+14155550177" },
    { name: "a LID whose number wagate knows", over: { from: "1234567890123:0@lid" }, pnForLid: async () => "14155550188@s.whatsapp.net", from: "+14155550188" },
    { name: "a LID and no number anywhere", over: { from: "1234567890123:0@lid" }, pnForLid: noPn, from: "1234567890123@lid" },
    { name: "a LID whose look-up fails", over: { from: "1234567890123:0@lid" }, pnForLid: async () => Promise.reject(new Error("db")), from: "1234567890123@lid" },
  ])("the caller from $name is $from; the reject goes to the JID WhatsApp named", async ({ over, pnForLid, from }) => {
    const [signal] = await mapCalls([event(over)], { pnForLid, nowMs: NOW })
    expect(signal).toEqual({ callId: "9A1F3C6E2B7D4E80A5C3B1D2E4F60718", stage: "offered", from, callerJid: event(over).from, isVideo: true, isGroup: false, atMs: NOW - 2_000 })
  })

  test("a step with no usable time takes the clock's; set-up steps and calls with no usable id or caller are dropped", async () => {
    const signals = await mapCalls(
      [
        event({ date: new Date(Number.NaN), status: "terminate" }),
        event({ date: new Date(NOW + 60_000), status: "timeout" }),
        event({ status: "relaylatency" }),
        event({ id: "" }),
        event({ id: "x".repeat(65) }),
        event({ id: "<script>" }),
        event({ from: "" }),
      ],
      { pnForLid: noPn, nowMs: NOW },
    )
    expect(signals.map((s) => [s.stage, s.atMs])).toEqual([
      ["terminated", NOW],
      ["timed_out", NOW],
    ])
  })
})
