import { randomBytes } from "node:crypto"
import { S_WHATSAPP_NET, type BinaryNode } from "@whiskeysockets/baileys"
import { unixSeconds } from "./nodes"

/*
 * WhatsApp's passkey gate on linking ("Shortcake"), as public reports describe it since late June
 * 2026. For an account in the rollout, once the phone accepted the link the server sends
 * `<notification type="passkey_prologue_request" from="s.whatsapp.net">` with a
 * `<passkey_request_options>` child (WebAuthn request options as UTF-8 JSON) instead of
 * `pair-success`: by QR after the scan (tulir/whatsmeow#1185, WhiskeySockets/Baileys#2672,
 * #2694), by code after `companion_finish` (tulir/whatsmeow#1188, WhiskeySockets/Baileys PR
 * #2689). The companion must answer with a passkey assertion (tulir/whatsmeow PR #1186); the phone
 * meanwhile shows "Continue on WhatsApp Web" (#2684, #2694). The request options are the shape
 * PR #2689 quotes (rpId `whatsapp.com`, a 10-minute timeout, user verification required); the
 * challenge here is random.
 */

/** What the phone shows when the server gated the link on a passkey: the link does not complete. */
export class PasskeyRequiredError extends Error {
  constructor(readonly phoneNumber: string) {
    super(`Continue on WhatsApp Web: linking a device to ${phoneNumber} needs the account's passkey`)
    this.name = "PasskeyRequiredError"
  }
}

/** The WebAuthn request options the server puts in the request, as WhiskeySockets/Baileys PR #2689 quotes them. */
export function passkeyRequestOptions(): Record<string, unknown> {
  return {
    challenge: randomBytes(32).toString("base64url"),
    timeout: 600_000,
    rpId: "whatsapp.com",
    allowCredentials: [],
    userVerification: "required",
    extensions: { uvm: true },
  }
}

/** `<notification type="passkey_prologue_request" from="s.whatsapp.net"><passkey_request_options>{json}</…></notification>` */
export function passkeyRequestNode(nowMs: number): BinaryNode {
  return {
    tag: "notification",
    attrs: { from: S_WHATSAPP_NET, type: "passkey_prologue_request", id: randomBytes(8).toString("hex"), t: unixSeconds(nowMs) },
    content: [{ tag: "passkey_request_options", attrs: {}, content: Buffer.from(JSON.stringify(passkeyRequestOptions())) }],
  }
}
