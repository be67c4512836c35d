import type { Clock } from "../lib/clock"
import type { GroupInfo, WhatsAppSession } from "../whatsapp/gateway"

/** How long a number's WhatsApp check is trusted (docs/decisions.md § "Live sends"). */
export const NUMBER_CHECK_TTL_MS = 24 * 3_600_000
/** How long a phone's group list is trusted (docs/decisions.md § "Phones, groups, account and usage"). */
export const GROUPS_TTL_MS = 5 * 60_000
const MAX_CACHED_NUMBERS = 50_000

/** What answers number checks: a phone's WhatsApp session, or the sandbox. */
export type NumberSource = Pick<WhatsAppSession, "checkNumbers">

/**
 * Caches of what WhatsApp told us: which numbers are on WhatsApp (and their JID) per phone,
 * and each phone's groups. Asking WhatsApp less often keeps sends fast and avoids the
 * rate-overlimit errors WhatsApp answers clients that ask too often.
 */
export interface LiveLookups {
  /** The JID to send to, or null when the number is not on WhatsApp. */
  recipientJid(phoneId: string, session: WhatsAppSession, e164: string): Promise<string | null>
  /** The numbers of `e164s` whose check is not cached for the phone: what asking would cost. */
  uncached(phoneId: string, e164s: readonly string[]): string[]
  /** Each number's JID (null: not on WhatsApp), asking WhatsApp once, in bulk, for the uncached ones. */
  checkNumbers(phoneId: string, session: NumberSource, e164s: readonly string[]): Promise<Map<string, string | null>>
  /** The phone's groups; a stale list is served when a refresh fails, a cold failure throws. */
  groups(phoneId: string, session: WhatsAppSession): Promise<GroupInfo[]>
  /** Forgets everything about a phone (logout, removal). */
  forget(phoneId: string): void
  /** Forgets a phone's group list, after the phone created, joined or left a group or changed who may post. */
  forgetGroups(phoneId: string): void
}

export function createLiveLookups(clock: Clock): LiveLookups {
  const numbers = new Map<string, { jid: string | null; expiresAtMs: number }>()
  const groupLists = new Map<string, { groups: GroupInfo[]; fetchedAtMs: number }>()
  const inflight = new Map<string, Promise<GroupInfo[]>>()

  function cached(phoneId: string, e164: string): { jid: string | null } | undefined {
    const entry = numbers.get(`${phoneId}|${e164}`)
    return entry && entry.expiresAtMs > clock.nowMs() ? entry : undefined
  }

  function remember(phoneId: string, e164: string, jid: string | null): void {
    // Map iteration is insertion order: dropping the first key drops the oldest entry.
    if (numbers.size >= MAX_CACHED_NUMBERS) numbers.delete(numbers.keys().next().value!)
    numbers.set(`${phoneId}|${e164}`, { jid, expiresAtMs: clock.nowMs() + NUMBER_CHECK_TTL_MS })
  }

  async function checkNumbers(phoneId: string, session: NumberSource, e164s: readonly string[]): Promise<Map<string, string | null>> {
    const missing = e164s.filter((e164) => cached(phoneId, e164) === undefined)
    const asked = missing.length > 0 ? await session.checkNumbers(missing) : new Map<string, string | null>()
    for (const e164 of missing) remember(phoneId, e164, asked.get(e164) ?? null)
    return new Map(e164s.map((e164) => [e164, cached(phoneId, e164)?.jid ?? asked.get(e164) ?? null]))
  }

  return {
    async recipientJid(phoneId, session, e164) {
      return (await checkNumbers(phoneId, session, [e164])).get(e164) ?? null
    },
    uncached: (phoneId, e164s) => e164s.filter((e164) => cached(phoneId, e164) === undefined),
    checkNumbers,
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
    forgetGroups(phoneId) {
      groupLists.delete(phoneId)
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
