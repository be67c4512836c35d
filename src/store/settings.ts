/**
 * Names of instance-wide settings. `node_secret` signs requests between nodes
 * (docs/operations.md § "Running several nodes"); the export leaves it out.
 */
export type SettingKey = "admin_token_hash" | "node_secret"
