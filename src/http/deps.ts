import type { DomainContext } from "../domain/context"
import type { LiveGroupSource } from "../domain/groups"
import type { RateLimiter } from "../domain/rate-limits"
import type { SandboxScheduler } from "../domain/sandbox"
import type { UsageRecorder } from "../domain/usage"

/** What the HTTP layer needs, built by the composition root. */
export interface HttpDeps {
  ctx: DomainContext
  limiter: RateLimiter
  usage: UsageRecorder
  sandbox: SandboxScheduler
  /** Fetches a connected phone's groups; null while no WhatsApp connection exists. */
  liveGroups: LiveGroupSource | null
  version: string
}
