/** Re-exported for src/store/webhooks.ts; the vocabulary is declared in src/lib/vocabulary.ts. */
export type { Environment } from "../lib/vocabulary"
import type { Environment } from "../lib/vocabulary"

/** An API key record; the key itself is never stored, only its SHA-256. */
export interface ApiKeyRow {
  id: string
  accountId: string
  env: Environment
  keyHash: string
  prefix: string
  last4: string
  name: string
  scopes: string[]
  createdAtMs: number
  lastUsedAtMs: number | null
  expiresAtMs: number | null
  revokedAtMs: number | null
}
