import { Type } from "@sinclair/typebox"
import type { AccountProfile } from "../../domain/accounts"
import type { UsageReport } from "../../domain/usage"
import { named } from "../../lib/schema"
import { toIso } from "../../lib/time"
import { Timestamp } from "./common"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

const AccountFields = {
  accountId: Type.String({ examples: ["acc_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
  name: Type.String({ examples: ["Acme"] }),
  email: Type.String({ examples: ["ops@acme.example"] }),
  subscriptionStatus: Type.Union([Type.Literal("active"), Type.Literal("inactive")]),
  stats: Type.Object({
    apiKeys: Type.Integer({ minimum: 0 }),
    phoneNumbers: Type.Integer({ minimum: 0 }),
    messages: Type.Integer({ minimum: 0 }),
  }),
}

export const Account = named("Account", Type.Object(AccountFields))

/** The fields of an account, for the operator's view that adds its own. */
export { AccountFields }
export type Account = typeof Account.static

/** The API's view of an account with its stats. */
export function toAccount(profile: AccountProfile): Account {
  return {
    accountId: profile.account.id,
    name: profile.account.name,
    email: profile.account.email,
    subscriptionStatus: profile.account.subscriptionStatus,
    stats: profile.stats,
  }
}

export const UsagePeriod = Type.Union([Type.Literal("day"), Type.Literal("week"), Type.Literal("month")], {
  description: "The current calendar day, ISO week or month, in UTC.",
  errorMessage: "period must be one of day, week, month",
})

export const UsageQuery = explainUnknownFields(
  Type.Object(
    { period: Type.Optional({ ...UsagePeriod, default: "month" }) },
    { additionalProperties: false },
  ),
  ENVIRONMENT_FROM_KEY,
)

export const Usage = named(
  "Usage",
  Type.Object({
    period: UsagePeriod,
    startDate: Timestamp,
    endDate: Timestamp,
    messages: Type.Object({
      total: Type.Integer({ minimum: 0 }),
      pending: Type.Integer({ minimum: 0 }),
      sent: Type.Integer({ minimum: 0 }),
      failed: Type.Integer({ minimum: 0 }),
    }),
    apiRequests: Type.Object({
      total: Type.Integer({ minimum: 0 }),
      successful: Type.Integer({ minimum: 0 }),
      failed: Type.Integer({ minimum: 0 }),
    }),
  }),
)

/** The API's view of a usage report. */
export function toUsage(report: UsageReport): typeof Usage.static {
  return {
    period: report.period,
    startDate: toIso(report.startMs),
    endDate: toIso(report.endMs),
    messages: report.messages,
    apiRequests: report.apiRequests,
  }
}
