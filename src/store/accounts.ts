export type SubscriptionStatus = "active" | "inactive"

/** An account row. */
export interface AccountRow {
  id: string
  name: string
  email: string
  subscriptionStatus: SubscriptionStatus
  rateLimitPerMinute: number | null
  createdAtMs: number
  updatedAtMs: number
}
