import type { OwnProfileDeps } from "../domain/own-profile"
import type { GroupPictureDeps } from "../domain/group-pictures"
import type { ContactBlocks } from "../domain/contact-blocks"
import type { Chats } from "../domain/chats"
import type { Labels } from "../domain/labels"
import type { ContactProfiles } from "../domain/contact-profiles"
import type { ContactChecker } from "../domain/contact-checks"
import type { GroupService } from "../domain/group-service"
import type { DomainContext } from "../domain/context"
import type { LiveLookups } from "../domain/live-lookups"
import type { PhoneLinks } from "../domain/phone-links"
import type { LiveGroupSource } from "../domain/groups"
import type { RateLimiter } from "../domain/rate-limits"
import type { LiveSender } from "../domain/live-sender"
import type { SandboxScheduler } from "../domain/sandbox"
import type { SessionManager } from "../domain/sessions"
import type { AppMetrics } from "../lib/app-metrics"
import type { CidrList } from "../lib/net-policy"
import type { UsageRecorder } from "../domain/usage"
import type { LiveActionDeps } from "../domain/wa-targets"
import type { InboundMediaDeps } from "../domain/inbound-media"
import type { NodeTrust } from "../domain/node-trust"
import type { EventStreams } from "../domain/event-streams"
import type { BrokerView } from "./dashboard/views/broker"

/** What the HTTP layer needs, built by the composition root. */
export interface HttpDeps {
  ctx: DomainContext
  limiter: RateLimiter
  usage: UsageRecorder
  sandbox: SandboxScheduler
  live: LiveSender
  sessions: SessionManager
  /** Fetches a connected phone's postable groups from WhatsApp. */
  liveGroups: LiveGroupSource
  /** What presence needs: the connected sessions and the number cache. */
  presence: { links: PhoneLinks; lookups: LiveLookups }
  /** What reactions, edits, revokes and read receipts of live messages need. */
  messageActions: LiveActionDeps
  /** Inbound media: the connected sessions, the on-disk cache and the size caps. */
  inboundMedia: InboundMediaDeps
  /** The groups API: sandbox groups for test keys, the phone's WhatsApp session for live keys. */
  groups: GroupService
  /** The phone's own profile and pictures: the connected sessions, the media fetcher and one conversion at a time. */
  ownProfile: OwnProfileDeps
  /** Group pictures: the groups API's detail (404 / 403), the sessions and the same picture source. */
  groupPictures: GroupPictureDeps
  /** Number checks, with their hourly budget per phone. */
  contactChecks: ContactChecker
  contactBlocks: ContactBlocks
  contactProfiles: ContactProfiles
  /** Chats, timelines and contacts (docs/api.md § "Chats and contacts"). */
  chats: Chats
  /** Labels made and put on chats (docs/api.md § "Labels"). */
  labels: Labels
  /** Server-Sent Events over the event log (docs/webhooks.md § "Streams"). */
  eventStreams: EventStreams
  metrics: AppMetrics
  /** Proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (WAGATE_TRUSTED_PROXIES). */
  trustedProxies: CidrList
  /** Serve /metrics without the admin token (WAGATE_METRICS_PUBLIC=1). */
  metricsPublic: boolean
  version: string
  /** This node's WAGATE_NODE_ID and the lease length: the nodes list (admin route, dashboard) needs both. */
  node: { nodeId: string; leaseMs: number }
  /** Signs the requests this node forwards to another, and checks those forwarded to it (src/http/node-requests.ts). */
  nodeTrust: NodeTrust
  /** The RabbitMQ publisher's state and backlog for the dashboard's overview; absent without WAGATE_AMQP_URL. */
  brokerStatus?: () => Promise<BrokerView>
  /** A token valid as the admin token for this run only, written to the lock file for the local CLI. */
  localAdminToken?: string
}
