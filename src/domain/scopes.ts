import { ALL_SCOPES, type Scope } from "../lib/vocabulary"

// The scopes are vocabulary (the CLI's help lists them without loading the domain).
export { ALL_SCOPES, CANONICAL_SCOPES, type Scope } from "../lib/vocabulary"

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
  /** Creating and running groups (docs/api.md § "Run groups: create, detail, settings, participants, invites, join, leave"); a key made before it existed does not get it. */
  groupsWrite: ["groups:write"],
  /** A group's detail and invite link: readers of the group list and group writers. */
  groupDetailRead: ["groups:read", "groups:write", "messages:read", "messages:send", "messages:write"],
  /** Profiles and the block list; a key that may change contacts may read them. */
  contactsRead: ["contacts:read", "contacts:write"],
  /** Blocking and unblocking. */
  contactsWrite: ["contacts:write"],
  /** The phone's own profile (name, about, picture). */
  phoneNumbersWrite: ["phone_numbers:write"],
  /** Event streams (docs/webhooks.md § "Streams"): a key of its own for them is recommended, as it may travel in a URL. */
  eventsRead: ["events:read"],
} as const satisfies Record<string, readonly Scope[]>

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value)
}

/** True when the key's scopes include one of the accepted ones. */
export function hasAnyScope(keyScopes: readonly string[], accepted: readonly string[]): boolean {
  return accepted.some((s) => keyScopes.includes(s))
}
