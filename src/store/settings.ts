import type { Environment } from "../lib/vocabulary"

/**
 * Names of instance-wide settings. `node_secret` signs requests between nodes
 * (docs/operations.md § "Running several nodes"); the export leaves it out. A phone's own
 * profile as set through the API is kept per environment (src/domain/own-profile.ts).
 */
export type SettingKey = "admin_token_hash" | "node_secret" | `phone_profile:${Environment}:${string}`
