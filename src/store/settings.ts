/** Names of instance-wide settings. */
export type SettingKey = "admin_token_hash"
