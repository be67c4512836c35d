import type { Environment } from "../lib/vocabulary"

/** Request counts of one account, environment and UTC day. */
export interface ApiRequestCounts {
  accountId: string
  env: Environment
  dayMs: number
  successful: number
  failed: number
}
