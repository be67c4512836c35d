import { boundedOutsideText } from "../../lib/outside-text"
import type { NotificationNode } from "./adv-rotation"

/*
 * The passkey gate on linking ("Shortcake"), as tulir/whatsmeow#1185 and WhiskeySockets/Baileys#2672
 * observed it from late June 2026: for some accounts, once the phone accepted the link (a scanned
 * QR, or a typed pairing code after `companion_finish`), the server sends
 * `<notification type="passkey_prologue_request" from="s.whatsapp.net">` instead of `pair-success`.
 * Its `<passkey_request_options>` child holds WebAuthn request options as UTF-8 JSON (rpId
 * `whatsapp.com`, user verification required; WhiskeySockets/Baileys PR #2689), and the companion
 * must answer with an assertion signed by the account's passkey (tulir/whatsmeow PR #1186,
 * `PairPasskeyRequest`). wagate runs headless and holds no passkey, so it cannot answer; Baileys
 * 7.0.0-rc14 does not know the stanza either and would keep showing QR codes until its refs run
 * out. The session listens for it on the raw socket and ends the attempt at once as
 * `passkey_required` (docs/live-whatsapp.md § "Passkey-gated linking").
 */

/** The notification type that asks the companion for a passkey assertion. */
export const PASSKEY_REQUEST_TYPE = "passkey_prologue_request"

/**
 * Only the server may gate a link; whatsmeow ignores the notification from anyone else. Baileys
 * decodes the server's JID as `@s.whatsapp.net`, whatsmeow writes it `s.whatsapp.net`.
 */
const SERVER_JIDS: ReadonlySet<string> = new Set(["@s.whatsapp.net", "s.whatsapp.net"])

/** What wagate keeps of a passkey request: enough for the log, never the challenge. */
export interface PasskeyRequest {
  /** The WebAuthn relying party the passkey belongs to (`whatsapp.com`), bounded; null when the options did not say. */
  rpId: string | null
  /** Whether the notification carried request options at all (whatsmeow asks for them with an IQ when not). */
  hasOptions: boolean
}

/** The passkey request a stanza is, or null when it is anything else. */
export function passkeyRequestOf(node: NotificationNode): PasskeyRequest | null {
  if (node.tag !== "notification" || node.attrs.type !== PASSKEY_REQUEST_TYPE || !SERVER_JIDS.has(node.attrs.from ?? "")) return null
  const options = Array.isArray(node.content) ? (node.content as NotificationNode[]).find((child) => child?.tag === "passkey_request_options") : undefined
  return { rpId: rpIdOf(options?.content), hasOptions: options !== undefined }
}

/** The words the log gets for the request: what WhatsApp asked for, never its challenge. */
export function passkeyRequestCause(request: PasskeyRequest): string {
  const rp = request.rpId === null ? "" : ` for ${request.rpId}`
  return `WhatsApp sent ${PASSKEY_REQUEST_TYPE}${rp}${request.hasOptions ? "" : " without request options"}`
}

/** `rpId` of the JSON request options, when they parse and name one. */
function rpIdOf(content: unknown): string | null {
  const bytes = content instanceof Uint8Array ? content : null
  if (bytes === null) return null
  try {
    const rpId: unknown = (JSON.parse(new TextDecoder().decode(bytes)) as { rpId?: unknown } | null)?.rpId
    return typeof rpId === "string" && rpId !== "" ? boundedOutsideText(rpId, 64) : null
  } catch {
    return null
  }
}
