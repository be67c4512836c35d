/**
 * A sandbox phone's block list (docs/api.md § "Blocking"): test keys block and unblock here, since
 * a sandbox phone has no WhatsApp account to keep it. Live phones' lists are WhatsApp's own.
 */
export interface SandboxBlockRow {
  phoneId: string
  /** E.164, or a `…@lid` JID. */
  contact: string
  blockedAtMs: number
}
