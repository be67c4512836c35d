/*
 * The passkey gate on linking (docs/live-whatsapp.md § "Passkey-gated linking"): which stanzas
 * are WhatsApp asking for a passkey, as tulir/whatsmeow#1185 and PR #1186 describe them, and what
 * of them reaches the log. The session's reaction to it runs against the simulator in
 * test/live/passkey-gate.test.ts.
 */
import { describe, expect, test } from "bun:test"
import { failureOf } from "../../src/whatsapp/baileys/close-errors"
import type { NotificationNode } from "../../src/whatsapp/baileys/adv-rotation"
import { passkeyRequestCause, passkeyRequestOf, type PasskeyRequest } from "../../src/whatsapp/baileys/passkey-gate"

const options = (json: string): NotificationNode => ({ tag: "passkey_request_options", attrs: {}, content: new TextEncoder().encode(json) })
/** The request options as WhiskeySockets/Baileys PR #2689 quotes them (the challenge shortened). */
const OBSERVED = '{"challenge":"c2hvcnRjYWtl","timeout":600000,"rpId":"whatsapp.com","allowCredentials":[],"userVerification":"required","extensions":{"uvm":true}}'
const request = (attrs: Record<string, string>, content?: unknown): NotificationNode => ({ tag: "notification", attrs, content })
const gate = { type: "passkey_prologue_request", id: "1234", t: "1782800000" }

const cases: [string, NotificationNode, PasskeyRequest | null][] = [
  ["the observed request, from the server as Baileys decodes its JID", request({ ...gate, from: "@s.whatsapp.net" }, [options(OBSERVED)]), { rpId: "whatsapp.com", hasOptions: true }],
  ["the same, with the server's JID as whatsmeow writes it", request({ ...gate, from: "s.whatsapp.net" }, [options(OBSERVED)]), { rpId: "whatsapp.com", hasOptions: true }],
  ["without request options (whatsmeow then asks for them)", request({ ...gate, from: "@s.whatsapp.net" }), { rpId: null, hasOptions: false }],
  ["request options that are not JSON", request({ ...gate, from: "@s.whatsapp.net" }, [options("\u0000cbor?")]), { rpId: null, hasOptions: true }],
  ["request options whose rpId is not a string", request({ ...gate, from: "@s.whatsapp.net" }, [options('{"rpId":42}')]), { rpId: null, hasOptions: true }],
  ["an rpId with control characters is escaped and bounded", request({ ...gate, from: "@s.whatsapp.net" }, [options(JSON.stringify({ rpId: `evil\u001b[31m${"x".repeat(200)}` }))]), { rpId: expect.stringMatching(/^evil\\x1b\[31mx+…$/) as unknown as string, hasOptions: true }],
  ["from anyone but the server", request({ ...gate, from: "15550001111@s.whatsapp.net" }, [options(OBSERVED)]), null],
  ["without a sender", request(gate, [options(OBSERVED)]), null],
  ["another notification type (the secret rotation)", request({ ...gate, type: "companion_reg_refresh", from: "@s.whatsapp.net" }, [{ tag: "companion_reg_refresh", attrs: {} }]), null],
  ["the continuation wagate never asks for", request({ ...gate, type: "crsc_continuation", from: "@s.whatsapp.net" }), null],
  ["an IQ carrying request options", { tag: "iq", attrs: { type: "result", from: "@s.whatsapp.net" }, content: [options(OBSERVED)] }, null],
]

describe("passkey gate: recognising WhatsApp's passkey request", () => {
  test.each(cases)("%s", (_name, node, expected) => {
    expect(passkeyRequestOf(node)).toEqual(expected)
  })

  test("the rpId is cut to 64 characters", () => {
    const long = passkeyRequestOf(request({ ...gate, from: "@s.whatsapp.net" }, [options(JSON.stringify({ rpId: "a".repeat(500) }))]))
    expect(long?.rpId?.length).toBe(64)
  })

  test("the log's cause names what WhatsApp asked for and never the challenge", () => {
    const observed = passkeyRequestOf(request({ ...gate, from: "@s.whatsapp.net" }, [options(OBSERVED)]))!
    expect(passkeyRequestCause(observed)).toBe("WhatsApp sent passkey_prologue_request for whatsapp.com")
    expect(passkeyRequestCause({ rpId: null, hasOptions: false })).toBe("WhatsApp sent passkey_prologue_request without request options")
    expect(passkeyRequestCause(observed)).not.toContain("c2hvcnRjYWtl")
  })

  test("the session's passkey_required close is its own failure code", () => {
    const failure = failureOf(undefined, { reason: "passkey_required", host: "web.whatsapp.com", waVersion: "2.3000.1" })
    expect(failure).toMatchObject({ code: "passkey_required", host: "web.whatsapp.com", waVersion: "2.3000.1" })
  })
})
