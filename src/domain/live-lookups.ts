import type { Clock } from "../lib/clock"
import type { GroupInfo, WhatsAppSession } from "../whatsapp/gateway"

/** How long a number's WhatsApp check is trusted (docs/decisions.md § "Live sends"). */
export const NUMBER_CHECK_TTL_MS = 24 * 3_600_000
/** How long a phone's group list is trusted (docs/decisions.md § "Phones, groups, account and usage"). */
export const GROUPS_TTL_MS = 5 * 60_000
const MAX_CACHED_NUMBERS = 50_000

/**
 * Caches of what WhatsApp told us: which numbers are on WhatsApp (and their JID) per phone,
 * and each phone's groups. Asking WhatsApp less often keeps sends fast and avoids the
 * rate-overlimit errors WhatsApp answers clients that ask too often.
 */
export interface LiveLookups {
  /** The JID to send to, or null when the number is not on WhatsApp. */
  recipientJid(phoneId: string, session: WhatsAppSession, e164: string): Promise<string | null>
  /** The phone's groups; a stale list is served when a refresh fails, a cold failure throws. */
  groups(phoneId: string, session: WhatsAppSession): Promise<GroupInfo[]>
  /** Forgets everything about a phone (logout, removal). */
  forget(phoneId: string): void
}

export function createLiveLookups(clock: Clock): LiveLookups {
  const numbers = new Map<string, { jid: string | null; expiresAtMs: number }>()
  const groupLists = new Map<string, { groups: GroupInfo[]; fetchedAtMs: number }>()
  const inflight = new Map<string, Promise<GroupInfo[]>>()

  return {
    async recipientJid(phoneId, session, e164) {
      const key = `${phoneId}|${e164}`
      const cached = numbers.get(key)
      if (cached && cached.expiresAtMs > clock.nowMs()) return cached.jid
      const result = await session.checkNumbers([e164])
      const jid = result.get(e164) ?? null
      // Map iteration is insertion order: dropping the first key drops the oldest entry.
      if (numbers.size >= MAX_CACHED_NUMBERS) numbers.delete(numbers.keys().next().value!)
      numbers.set(key, { jid, expiresAtMs: clock.nowMs() + NUMBER_CHECK_TTL_MS })
      return jid
    },
    async groups(phoneId, session) {
      const cached = groupLists.get(phoneId)
      if (cached && clock.nowMs() - cached.fetchedAtMs < GROUPS_TTL_MS) return cached.groups
      // One fetch per phone at a time: concurrent callers share it.
      let pending = inflight.get(phoneId)
      if (!pending) {
        pending = session.fetchGroups().finally(() => inflight.delete(phoneId))
        inflight.set(phoneId, pending)
      }
      try {
        const groups = await pending
        groupLists.set(phoneId, { groups, fetchedAtMs: clock.nowMs() })
        return groups
      } catch (err) {
        if (cached) return cached.groups
        throw err
      }
    },
    forget(phoneId) {
      groupLists.delete(phoneId)
      for (const key of numbers.keys()) if (key.startsWith(`${phoneId}|`)) numbers.delete(key)
    },
  }
}

/** True when the phone may post in the group: a member, and an admin when only admins may post. */
export function canPost(group: GroupInfo): boolean {
  return group.selfIsMember && (!group.announcementOnly || group.selfIsAdmin)
}
