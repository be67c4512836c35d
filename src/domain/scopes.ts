/** Every scope a key can carry, aliases included (docs/decisions.md § "API keys and scopes"). */
export const ALL_SCOPES = [
  "messages:send",
  "messages:write",
  "messages:read",
  "groups:read",
  "phone_numbers:read",
  "phone-numbers:read",
  "account:read",
] as const
export type Scope = (typeof ALL_SCOPES)[number]

/** The canonical scopes, which together allow every endpoint; the sandbox key gets these. */
export const CANONICAL_SCOPES: readonly Scope[] = [
  "messages:send",
  "messages:read",
  "groups:read",
  "phone_numbers:read",
  "account:read",
]

/**
 * The spec's scope matrix: for each endpoint group, any one of these scopes admits the key.
 * "messages:*" in the spec means every messages scope.
 */
export const REQUIRED_SCOPES = {
  send: ["messages:send", "messages:write"],
  messagesRead: ["messages:read"],
  groupsRead: ["groups:read", "messages:read", "messages:send", "messages:write"],
  phoneNumbersRead: ["phone_numbers:read", "phone-numbers:read", "messages:read", "messages:send", "messages:write"],
  accountRead: ["account:read", "messages:read", "messages:send", "messages:write"],
  contactsCheck: ["messages:send", "messages:write", "messages:read"],
} as const satisfies Record<string, readonly Scope[]>

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value)
}

/** True when the key's scopes include one of the accepted ones. */
export function hasAnyScope(keyScopes: readonly string[], accepted: readonly string[]): boolean {
  return accepted.some((s) => keyScopes.includes(s))
}
