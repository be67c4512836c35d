/**
 * A group a test key's sandbox holds (docs/api.md § "Run groups: create, detail, settings, participants, invites, join, leave"): the account's sandbox groups,
 * created through the API or changed from the seed's two, with their whole state as one JSON
 * document (the sandbox's own shape, read and written only by src/domain/group-sandbox.ts).
 */
export interface SandboxGroupRow {
  accountId: string
  groupId: string
  /** The group's state, JSON. */
  state: string
  /** The idempotency key of the create that made it, when it was created with one. */
  idempotencyKey: string | null
  /** The create request's fingerprint, compared when the key is used again. */
  requestFingerprint: string | null
  createdAtMs: number
  updatedAtMs: number
}
