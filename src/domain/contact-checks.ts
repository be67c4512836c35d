import { noSessionError } from "./wa-targets"
import { errors } from "../lib/errors"
import { takeTokens, type BucketState } from "../lib/token-bucket"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { createLiveLookups, type LiveLookups, type NumberSource } from "./live-lookups"
import { resolvePhone } from "./phones"
import type { PhoneLinks } from "./phone-links"
import { SANDBOX_RECIPIENTS } from "./sandbox"

/** The most numbers one request may check (docs/api.md § "Check numbers: POST /v1/contacts/check"). */
export const CHECK_NUMBERS_MAX = 50
const HOUR_MS = 3_600_000

/** Whether a number is on WhatsApp, and the JID WhatsApp names for it. */
export interface ContactCheck {
  number: string
  onWhatsApp: boolean
  jid: string | null
}

export interface CheckContactsCommand {
  fromPhoneId: string
  numbers: string[]
}

export interface ContactChecker {
  check(principal: Principal, cmd: CheckContactsCommand): Promise<ContactCheck[]>
  /** Takes `count` lookups from the phone's hourly budget (profile lookups share it); past it, 429 with retryAfter. */
  charge(env: Principal["env"], phone: { id: string; phoneNumber: string }, count: number): void
}

/**
 * The sandbox's answers: the magic recipient that is not on WhatsApp is not, every other number
 * is, as `<digits>@s.whatsapp.net` (docs/api.md § "Sandbox (test keys)").
 */
const SANDBOX_NUMBERS: NumberSource = {
  async checkNumbers(e164s) {
    return new Map(e164s.map((e164) => [e164, SANDBOX_RECIPIENTS[e164]?.kind === "failed" && SANDBOX_RECIPIENTS[e164].errorCode === "recipient_not_on_whatsapp" ? null : `${e164.slice(1)}@s.whatsapp.net`]))
  },
}

/**
 * Number checks (`POST /v1/contacts/check`). WhatsApp bans phones that look up whole address
 * books, so each phone may ask about at most `perPhonePerHour` numbers an hour
 * (WAGATE_CHECKS_PER_PHONE_PER_HOUR): a token bucket per phone and environment, charged only for
 * the numbers the 24-hour cache (the one sends use) cannot answer, all or nothing. The sandbox
 * answers from the magic recipients through the same cache and budget, so a script meets the
 * same `429` with a test key first.
 */
export function createContactChecker(deps: { ctx: DomainContext; lookups: LiveLookups; links: PhoneLinks; perPhonePerHour: number }): ContactChecker {
  const { ctx, links, perPhonePerHour } = deps
  const sandboxLookups = createLiveLookups(ctx.clock)
  const budgets = new Map<string, BucketState>()

  function charge(budgetKey: string, phoneNumber: string, count: number): void {
    if (count === 0) return
    const taken = takeTokens(budgets.get(budgetKey), { capacity: perPhonePerHour, periodMs: HOUR_MS }, count, ctx.clock.nowMs())
    budgets.set(budgetKey, taken.state)
    if (!taken.allowed) throw errors.checkBudgetExhausted(phoneNumber, perPhonePerHour, Math.max(1, Math.ceil(taken.retryAfterMs / 1000)))
  }

  return {
    charge: (env, phone, count) => charge(`${env}|${phone.id}`, phone.phoneNumber, count),
    async check(principal, cmd) {
      // A number listed twice is answered (and charged) once, where it first appears.
      const numbers = [...new Set(cmd.numbers)]
      if (numbers.length > perPhonePerHour) throw errors.validation([`numbers must list at most ${perPhonePerHour} distinct numbers: each phone checks at most that many an hour`])
      const phone = await resolvePhone(ctx, principal.accountId, cmd.fromPhoneId)
      let source: NumberSource
      let lookups: LiveLookups
      if (principal.env === "test") {
        source = SANDBOX_NUMBERS
        lookups = sandboxLookups
      } else {
        const session = phone.connectionStatus === "connected" ? links.sessionOf(phone.id) : null
        if (session === null) throw await noSessionError(ctx, phone, phone.id)
        source = session
        lookups = deps.lookups
      }
      charge(`${principal.env}|${phone.id}`, phone.phoneNumber, lookups.uncached(phone.id, numbers).length)
      let answers: Map<string, string | null>
      try {
        answers = await lookups.checkNumbers(phone.id, source, numbers)
      } catch (err) {
        throw errors.whatsappUnanswered("Checking the numbers with WhatsApp failed; retry after a moment", err)
      }
      return numbers.map((number) => {
        const jid = answers.get(number) ?? null
        return { number, onWhatsApp: jid !== null, jid }
      })
    },
  }
}
