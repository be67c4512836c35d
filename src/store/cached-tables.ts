/** The tables whose rows this process caches (API keys with their accounts, webhook subscriptions). */
export const CACHED_TABLES = ["accounts", "api_keys", "webhook_endpoints", "event_consumers"] as const
export type CachedTable = (typeof CACHED_TABLES)[number]
