import type { Environment, MessageStatus } from "../lib/vocabulary"
import type { CachedTable } from "./cached-tables"
/*
 * The store's seam (docs/architecture.md § "The store"): everything the rest of wagate asks of
 * the database, as async methods in wagate's vocabulary. There is one implementation per
 * database: SQLite (src/store/sqlite/store.ts, the embedded default, with its group commit) and
 * PostgreSQL (src/store/postgres/, for several nodes). One contract suite
 * (test/store/contract/) runs against both. No caller branches on the database: a difference in
 * behaviour belongs in an implementation, named here.
 *
 * The query groups below mirror the modules that hold the SQLite statements (src/store/sqlite/)
 * and the PostgreSQL ones (src/store/postgres/); the rows they hand out are typed once, in the
 * same-named modules beside this one (src/store/messages.ts…), which both import.
 */
import type { SubscriptionStatus, AccountRow } from "./accounts"
import type { ApiKeyRow } from "./api-keys"
import type { DashboardSessionRow } from "./dashboard-sessions"
import type { ClaimedDelivery } from "./delivery-claims"
import type { StoredInboundMedia, StoredLocation, StoredContact, InboundRow, InboundListQuery } from "./inbound"
import type { LeaseQueries } from "./leases"
import type { UnreadInbound } from "./message-actions"
import type { WaContactRow } from "./wa-contacts"
import type { GroupCreationRow, SandboxGroupRow } from "./sandbox-groups"
import type { SandboxBlockRow } from "./sandbox-blocks"
import type { PartRow } from "./message-parts"
import type { LocationExtra, ContactExtra, MessageExtras, MessageRow, NewMessageRow, MessageStatusPatch, MessageListQuery, MessageWindowQuery } from "./messages"
import type { PhoneRow, StoredPhoneError } from "./phones"
import type { RateDraw, RateDrawResult } from "./rate-buckets"
import type { ReplyRow } from "./replies"
import type { SendJobRow } from "./send-jobs"
import type { SettingKey } from "./settings"
import type { ApiRequestCounts } from "./usage"
import type { WaKeyChange } from "./wa-auth"
import type { SentWaMessage } from "./wa-resend"
import type { MessageSecret } from "./message-secrets"
import type { PollsQueries } from "./polls"
import type { ChatsQueries } from "./chats"
import type { LabelsQueries } from "./labels"
import type { CallPolicy, CallRow } from "./calls"
import type { HistorySettingsQueries } from "./history-settings"
import type { EventStreamsQueries } from "./event-streams"
import type { AmqpPublisherQueries } from "./amqp-publisher"
import type { CallOutcome } from "../lib/vocabulary"
import type { EndpointRow, EventRow, EventScan, DeliveryStatus, DeliveryRow, AttemptRow, DeliveryProgress, DeliveryWindowQuery } from "./webhooks"

/** src/store/sqlite/accounts.ts */
export interface AccountsQueries {
  /** Inserts an account. */
  insertAccount(row: AccountRow): Promise<void>
  /** One account by id. */
  findAccount(id: string): Promise<AccountRow | null>
  /** Every account, oldest first. */
  listAccounts(): Promise<AccountRow[]>
  /** Writes every mutable field of an account. */
  updateAccount(row: AccountRow): Promise<void>
  /** Active (not revoked, not expired) keys of an account; an account has a handful, so COUNT is cheap. */
  countActiveKeys(accountId: string, nowMs: number): Promise<number>
  /** Phones of an account. */
  countPhones(accountId: string): Promise<number>
}

/** src/store/sqlite/api-keys.ts */
export interface ApiKeysQueries {
  /** Inserts a key record. */
  insertApiKey(row: ApiKeyRow): Promise<void>
  /** The key whose SHA-256 is `keyHash` (one unique-index probe per request). */
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRow | null>
  /** One key record by id. */
  findApiKey(id: string): Promise<ApiKeyRow | null>
  /** Every key record of an account, oldest first. */
  listApiKeys(accountId: string): Promise<ApiKeyRow[]>
  /** Marks a key revoked (idempotent: the first revocation time is kept). */
  revokeApiKey(id: string, nowMs: number): Promise<void>
  /** Records when a key was last used. */
  touchApiKey(id: string, usedAtMs: number): Promise<void>
}

/** src/store/sqlite/dashboard-sessions.ts */
export interface DashboardSessionsQueries {
  /** Inserts a session. */
  insertDashboardSession(row: DashboardSessionRow): Promise<void>
  /** A session by the hash of its id; null when unknown. */
  findDashboardSession(idHash: string): Promise<DashboardSessionRow | null>
  /** Records activity on a session, which moves its idle expiry. */
  touchDashboardSession(idHash: string, seenAtMs: number): Promise<void>
  /** Deletes one session. */
  deleteDashboardSession(idHash: string): Promise<void>
  /** Deletes every session (the admin token changed). */
  deleteAllDashboardSessions(): Promise<void>
  /** Deletes the sessions idle since before `cutoffMs`. */
  deleteIdleDashboardSessions(cutoffMs: number): Promise<void>
}

/** src/store/sqlite/delivery-claims.ts (several nodes share the webhook deliveries) */
export interface DeliveryClaimQueries {
  /**
   * Claims for `nodeId`, until `nowMs + leaseMs`, up to `limit` deliveries that are pending, due
   * at `nowMs`, and not claimed (or whose claim expired), earliest due first, each with its event.
   * While a claim holds, no other node gets the delivery. Deliveries to `exceptEndpointIds` are
   * passed over (endpoints whose share of the node's attempt slots is taken already). A claim
   * held by a node whose last heartbeat (table `nodes`) came before `silentBeforeMs` counts as
   * expired: that node is dead or cut off (docs/webhooks.md § "Several nodes").
   */
  claimDueDeliveries(nodeId: string, nowMs: number, limit: number, leaseMs: number, exceptEndpointIds?: readonly string[], silentBeforeMs?: number | null): Promise<ClaimedDelivery[]>
  /** Whether claimDueDeliveries with these arguments would claim anything: a read, so an idle node's poll writes nothing. */
  hasClaimableDeliveries(nowMs: number, exceptEndpointIds?: readonly string[], silentBeforeMs?: number | null): Promise<boolean>
  /** Gives up `nodeId`'s claims on `ids` (claimable at once again); another node's claim is left alone. Returns how many. */
  releaseClaims(nodeId: string, ids: readonly string[]): Promise<number>
}

/** src/store/sqlite/inbound.ts */
export interface InboundQueries {
  /** An inbound message by id within one account and environment. */
  findScopedInbound(accountId: string, env: Environment, id: string): Promise<InboundRow | null>
  /** One page of inbound messages, newest first, with the total from the counters. */
  listInbound(q: InboundListQuery): Promise<{ rows: InboundRow[]; total: number }>
  /**
   * Records an inbound message once: a WhatsApp id already recorded for the phone (a redelivery
   * after a reconnect) inserts nothing and returns null. Must run inside a write transaction.
   */
  insertInbound(row: Omit<InboundRow, "seq">): Promise<InboundRow | null>
  /** One keyset page of inbound messages, newest first, below `beforeSeq` (no OFFSET, no count). */
  listInboundWindow(q: { accountId: string; env: Environment; phoneId?: string; beforeSeq: number | null; limit: number }): Promise<InboundRow[]>
  /** An inbound message by id, whatever its account (the operator's view). */
  findInbound(id: string): Promise<InboundRow | null>
  /** The inbound message a phone received under a WhatsApp id, or null. */
  findInboundByWaId(phoneId: string, waMessageId: string): Promise<InboundRow | null>
  /** The sender changed the text (or caption) of an inbound message. */
  markInboundEdited(id: string, content: string, editedAtMs: number): Promise<void>
  /** The sender deleted an inbound message for everyone; the row is kept. */
  markInboundRevoked(id: string, revokedAtMs: number): Promise<void>
  /** The media's descriptor after WhatsApp re-uploaded it. */
  updateInboundMediaDescriptor(id: string, media: StoredInboundMedia): Promise<void>
  /** WhatsApp no longer has the media. */
  markInboundMediaGone(id: string, atMs: number): Promise<void>
  /** Records someone's reaction to a message (msg_ or inmsg_); an empty emoji removes it. */
  recordReaction(targetId: string, fromAddress: string, emoji: string, atMs: number): Promise<void>
  /** The reactions to a message, oldest first. */
  listReactions(targetId: string): Promise<{ fromAddress: string; emoji: string; atMs: number }[]>
}

/** src/store/sqlite/message-actions.ts */
export interface MessageActionsQueries {
  /** Replaces a message's text (or caption) and records when. */
  markMessageEdited(messageId: string, content: string, editedAtMs: number): Promise<void>
  /** Records that a message was revoked for everyone; a second call keeps the first time. */
  markMessageRevoked(messageId: string, revokedAtMs: number): Promise<void>
  /**
   * The unread inbound messages of one chat of a phone up to and including `throughSeq`, newest
   * first, at most `limit`. A chat is its group, or for a 1:1 chat the sender's address.
   */
  listUnreadInChat(phoneId: string, chat: string, throughSeq: number, limit: number): Promise<UnreadInbound[]>
  /** Marks every unread inbound message of the chat up to `throughSeq` read; returns how many. */
  markChatReadThrough(phoneId: string, chat: string, throughSeq: number, readAtMs: number): Promise<number>
  /** When a read receipt covered an inbound message, or null. */
  inboundReadAtMs(inboundId: string): Promise<number | null>
}

/** src/store/sqlite/message-parts.ts */
export interface MessagePartsQueries {
  /** Inserts a part (pending). */
  insertPart(row: Pick<PartRow, "messageId" | "partIndex" | "waMessageId" | "mediaUrl" | "status">): Promise<void>
  /** Records the kind of a part's downloaded media. */
  setPartMediaKind(messageId: string, partIndex: number, mediaKind: NonNullable<PartRow["mediaKind"]>): Promise<void>
  /** A message's parts, in order. */
  listParts(messageId: string): Promise<PartRow[]>
  /** The part WhatsApp knows by this id (receipts and acks are matched by id only). */
  findPartByWaId(waMessageId: string): Promise<PartRow | null>
  /** Writes a part's state. */
  updatePart(row: PartRow): Promise<void>
}

/** src/store/sqlite/messages.ts */
export interface MessagesQueries {
  /**
   * Inserts a message with the next sequence number of its account and environment and counts
   * it. Must run inside a write transaction; returns the stored row. When another message of the
   * account and environment holds the row's idempotency key (on PostgreSQL, another node can
   * insert it between the caller's look-up and this insert), throws IdempotencyKeyTaken
   * (src/store/messages.ts) having written nothing; the write stays usable, so the caller looks
   * the key up again and replays that message.
   */
  insertMessage(row: NewMessageRow): Promise<MessageRow>
  /**
   * Writes status changes computed by the status machine and moves the counters with them, by
   * their net change: one statement per counter touched rather than four per message, since a
   * batch of sandbox transitions moves hundreds of messages between the same few counters.
   */
  updateMessageStatuses(changes: readonly { before: MessageRow; patch: MessageStatusPatch }[], nowMs: number): Promise<MessageRow[]>
  /** Messages with a sandbox change due at or before `nowMs`, earliest first, at most `limit`. */
  listSandboxDueMessages(nowMs: number, limit: number): Promise<MessageRow[]>
  /** When the earliest pending sandbox change falls due, or null if none is pending. */
  nextSandboxDueMs(): Promise<number | null>
  /**
   * When the earliest sandbox change after `afterMs` falls due, overdue ones aside (a retry
   * after a failed sweep uses it not to miss a change due before the retry). Reads the overdue
   * rows, so it is for that rare path only.
   */
  nextSandboxDueAfterMs(afterMs: number): Promise<number | null>
  /** A message by id, whatever its account (internal callers only). */
  findMessage(id: string): Promise<MessageRow | null>
  /** The messages with these ids that exist, in no particular order (internal callers only). */
  findMessages(ids: readonly string[]): Promise<MessageRow[]>
  /** A message by id within one account and environment; other partitions see nothing. */
  findScopedMessage(accountId: string, env: Environment, id: string): Promise<MessageRow | null>
  /** The message an idempotency key created in this account and environment, if any. */
  findMessageByIdempotencyKey(accountId: string, env: Environment, key: string): Promise<MessageRow | null>
  /** One page of messages, newest first, with the total from the counters (never COUNT(*)). */
  listMessages(q: MessageListQuery): Promise<{ rows: MessageRow[]; total: number }>
  /** Outbound messages of an account in one environment, or in both when `env` is omitted. */
  countMessages(accountId: string, env?: Environment): Promise<number>
  /** Messages created since `fromDayMs` (a UTC day start), by their current status. */
  countMessagesSince(accountId: string, env: Environment, fromDayMs: number): Promise<Record<MessageStatus, number>>
  /**
   * One page of messages by seq (an index seek at any depth: no OFFSET, no count). The statement
   * names only the filters in use, so SQLite can seek the status or phone index (an `x IS NULL OR`
   * test would keep it from using them). Recipients have no index (one would cost every send), so
   * a recipient filter reads a bounded window of the newest messages only.
   */
  listMessagesWindow(q: MessageWindowQuery): Promise<MessageRow[]>
  /** Messages per UTC day and current status since `fromDayMs`, from the daily counters. */
  dailyMessageCounts(accountId: string, env: Environment, fromDayMs: number): Promise<{ dayMs: number; status: MessageStatus; n: number }[]>
}

/** src/store/sqlite/phones.ts */
export interface PhonesQueries {
  /** Inserts a phone. */
  insertPhone(row: PhoneRow): Promise<void>
  /** An account's phone by its id or its E.164 number; null when the account has no such phone. */
  findPhoneByRef(accountId: string, ref: string): Promise<PhoneRow | null>
  /** A phone by id, whatever its account. */
  findPhone(id: string): Promise<PhoneRow | null>
  /** A phone by E.164 number, whatever its account (numbers are unique in an instance). */
  findPhoneByNumber(phoneNumber: string): Promise<PhoneRow | null>
  /** Every phone of an account, oldest first. */
  listPhones(accountId: string): Promise<PhoneRow[]>
  /** Removes a phone; its messages stay, still naming its number. */
  deletePhone(id: string): Promise<void>
  /** Records why the phone's last attempt failed, or clears it (null). */
  updatePhoneLastError(id: string, error: StoredPhoneError | null): Promise<void>
  /** Records when the offline-marker watchdog released the phone's held inbound events. */
  updatePhoneOfflineWatchdog(id: string, atMs: number): Promise<void>
  /** Records the version the phone's connect announces; a different one forgets the old one's expiry. */
  updatePhoneWaVersion(id: string, waVersion: string): Promise<void>
  /** Records the expiry WhatsApp announced for `waVersion`, if that is still the phone's version. */
  updatePhoneClientExpiry(id: string, waVersion: string, expiresAtMs: number): Promise<void>
  /** Records a phone's connection state, and whether it is to stay offline across restarts. */
  updatePhoneConnection(row: Pick<PhoneRow, "id" | "connectionStatus" | "lastConnectedAtMs" | "lastDisconnectedAtMs" | "updatedAtMs">, staysOffline: boolean): Promise<void>
  /** The phones a start must leave offline. */
  listPhonesStayingOffline(): Promise<Set<string>>
  /** Every phone of the instance (the session manager starts the paired ones at boot). */
  listAllPhones(): Promise<PhoneRow[]>
}

/** src/store/sqlite/rate-buckets.ts (several nodes share each key's rate limit) */
export interface RateBucketsQueries {
  /**
   * Refills the key's shared bucket to `nowMs`, puts back `returned`, caps it at the limit and
   * grants up to `wanted` whole tokens, atomically: concurrent draws from any number of nodes
   * never grant more than the bucket holds. One statement: call it outside a write.
   */
  drawRateTokens(draw: RateDraw): Promise<RateDrawResult>
}

/** src/store/sqlite/wa-contacts.ts (the senders a phone hears from) */
export interface WaContactsQueries {
  /** Records what a message told about its sender; fields left null keep their stored values. */
  upsertWaContact(row: WaContactRow): Promise<void>
  /** One sender of a phone by the address wagate records as `from`, or null. */
  findWaContact(phoneId: string, address: string): Promise<WaContactRow | null>
  /** A phone's senders, most recently seen first. */
  listWaContacts(phoneId: string, limit: number): Promise<WaContactRow[]>
}

/** src/store/sqlite/calls.ts (incoming calls and the call policy) */
export interface CallsQueries {
  /** Records a call offered to a phone; false when it was recorded before. */
  insertCall(call: Omit<CallRow, "endedAtMs" | "outcome">): Promise<boolean>
  /** One call of a phone in one environment, or null. */
  findCall(phoneId: string, env: Environment, callId: string): Promise<CallRow | null>
  /** Ends a ringing call; false when it is unknown or had already ended. */
  endCall(phoneId: string, callId: string, outcome: CallOutcome, endedAtMs: number): Promise<boolean>
  /** Deletes a phone's calls offered before `beforeMs`; returns how many. */
  pruneCalls(phoneId: string, beforeMs: number): Promise<number>
  /** A phone's call policy, or null when it has none. */
  findCallPolicy(phoneId: string): Promise<CallPolicy | null>
  saveCallPolicy(policy: CallPolicy): Promise<void>
  /** Claims the policy's reply to a caller at `nowMs`; false when the caller got one less than `windowMs` ago. */
  claimCallReply(phoneId: string, env: Environment, caller: string, nowMs: number, windowMs: number): Promise<boolean>
}

/** src/store/sqlite/sandbox-groups.ts (the groups a test key's sandbox holds) */
export interface SandboxGroupsQueries {
  /** Writes a sandbox group's state; the create's idempotency key and fingerprint stay as first written. */
  putSandboxGroup(row: SandboxGroupRow): Promise<void>
  /** One sandbox group of an account, or null. */
  findSandboxGroup(accountId: string, groupId: string): Promise<SandboxGroupRow | null>
  /** The sandbox group an account created with this idempotency key, or null. */
  findSandboxGroupByIdempotencyKey(accountId: string, key: string): Promise<SandboxGroupRow | null>
  /** An account's sandbox groups, oldest first. */
  listSandboxGroups(accountId: string): Promise<SandboxGroupRow[]>
  /** Records a live group create made with an idempotency key; a second record under the same key keeps the first. */
  insertGroupCreation(row: GroupCreationRow): Promise<void>
  /** The live group create an account made with this idempotency key, or null. */
  findGroupCreation(accountId: string, key: string): Promise<GroupCreationRow | null>
}

/** src/store/sqlite/sandbox-blocks.ts (test keys' block lists) */
export interface SandboxBlocksQueries {
  /** Blocks (blocking again keeps the first time) or unblocks a contact on a sandbox phone. */
  setSandboxBlock(phoneId: string, contact: string, blocked: boolean, atMs: number): Promise<void>
  /** A sandbox phone's block list, oldest first. */
  listSandboxBlocks(phoneId: string): Promise<SandboxBlockRow[]>
}

/** src/store/sqlite/replies.ts */
export interface RepliesQueries {
  /** The messages that quote `targetId`, oldest first, at most `limit` (both partial indexes serve it). */
  listRepliesTo(targetId: string, limit: number): Promise<ReplyRow[]>
}

/** src/store/sqlite/send-jobs.ts */
export interface SendJobsQueries {
  /** Queues a job (same transaction as its message). */
  insertSendJob(row: SendJobRow): Promise<void>
  /** Ends a job: its message left `pending`. */
  deleteSendJob(messageId: string): Promise<void>
  /** A phone's jobs, oldest first (the order they are sent in). */
  listSendJobs(phoneId: string): Promise<SendJobRow[]>
  /** The phones that have jobs waiting (read at start). */
  listPhonesWithJobs(): Promise<string[]>
}

/** src/store/sqlite/settings.ts */
export interface SettingsQueries {
  /** One setting, or null when unset. */
  getSetting(key: SettingKey): Promise<string | null>
  /** Sets one setting. */
  setSetting(key: SettingKey, value: string): Promise<void>
  /** Sets one setting unless it is set already: of writers racing, the first one's value stays. */
  insertSettingUnlessSet(key: SettingKey, value: string): Promise<void>
}

/** src/store/sqlite/stats.ts */
export interface StatsQueries {
  /** Outbound messages by environment and status, from the counters. */
  messagesByEnvAndStatus(): Promise<{ env: string; status: string; n: number }[]>
  /** Phones by connection status (a handful of rows). */
  phonesByStatus(): Promise<{ status: string; n: number }[]>
  /** Webhook deliveries still to attempt (uses the partial index on pending rows). */
  pendingDeliveries(): Promise<number>
}

/** src/store/sqlite/usage.ts */
export interface UsageQueries {
  /** Adds request counts to their day. */
  addApiRequestCounts(counts: ApiRequestCounts): Promise<void>
  /** Requests since `fromDayMs` (a UTC day start). */
  sumApiRequestsSince(accountId: string, env: Environment, fromDayMs: number): Promise<{ successful: number; failed: number }>
}

/** src/store/sqlite/wa-auth.ts */
export interface WaAuthQueries {
  /** The phone's credentials JSON, or null when it has none. */
  readCreds(phoneId: string): Promise<string | null>
  /** Stores the phone's credentials JSON, replacing what was there. */
  upsertCreds(phoneId: string, data: string, updatedAtMs: number): Promise<void>
  /**
   * True when a credentials row exists. That is not the same as "paired": a pairing that was
   * started and never finished leaves credentials too (the adapter decides pairing from their content).
   */
  hasCreds(phoneId: string): Promise<boolean>
  /** The stored keys of one type among `ids`, as id → JSON; missing ids are simply absent. */
  getKeys(phoneId: string, type: string, ids: readonly string[]): Promise<Map<string, string>>
  /**
   * Writes and deletes many keys in one transaction (a savepoint when the caller already has one,
   * as inside the Writer), so a Signal session update is never half stored.
   */
  setKeys(phoneId: string, changes: readonly WaKeyChange[]): Promise<void>
  /** Forgets a phone's credentials and every key, together (logout, removal, a pairing started over). */
  wipeAuth(phoneId: string): Promise<void>
  /** How many keys a phone has (diagnostics and tests: the first login stores 812 prekeys). */
  countKeys(phoneId: string): Promise<number>
}

/** src/store/sqlite/wa-resend.ts */
export interface WaResendQueries {
  /** Stores (or, for a part sent again after a reconnect, replaces) a sent message. */
  saveSentWaMessage(row: SentWaMessage): Promise<void>
  /** The stored message bytes, or null when never stored or already pruned. */
  loadSentWaMessage(phoneId: string, waMessageId: string): Promise<Uint8Array | null>
  /** Deletes up to `limit` messages sent before `cutoffMs`, oldest first; returns how many. */
  pruneSentWaMessages(cutoffMs: number, limit: number): Promise<number>
}

/** src/store/sqlite/message-secrets.ts */
export interface MessageSecretsQueries {
  /** Stores the secrets of several messages; one already stored for the same chat, id and sender is kept. */
  saveMessageSecrets(rows: readonly MessageSecret[]): Promise<void>
  /** Every secret a phone stored under a WhatsApp id (usually one), oldest first; the caller picks by chat and sender. */
  findMessageSecrets(phoneId: string, waMessageId: string): Promise<MessageSecret[]>
  /** Deletes up to `limit` secrets stored before `cutoffMs`, oldest first; returns how many. */
  pruneMessageSecrets(cutoffMs: number, limit: number): Promise<number>
}

/** src/store/sqlite/webhooks.ts */
export interface WebhooksQueries {
  /** Inserts an endpoint. */
  insertEndpoint(row: EndpointRow): Promise<void>
  /** Writes every mutable field of an endpoint. */
  updateEndpoint(row: EndpointRow): Promise<void>
  /** Removes an endpoint with its deliveries and their attempts. */
  deleteEndpoint(id: string): Promise<void>
  /** One endpoint by id. */
  findEndpoint(id: string): Promise<EndpointRow | null>
  /** Every endpoint of an account, both environments. */
  listEndpoints(accountId: string): Promise<EndpointRow[]>
  /** The enabled endpoints of an account and environment. */
  listEnabledEndpoints(accountId: string, env: Environment): Promise<EndpointRow[]>
  /** Inserts an event. */
  insertEvent(row: EventRow): Promise<void>
  /** One event by id. */
  findEvent(id: string): Promise<EventRow | null>
  /** Inserts a delivery. */
  insertDelivery(row: DeliveryRow): Promise<void>
  /** Writes a delivery's progress. */
  updateDelivery(row: DeliveryRow): Promise<void>
  /** One delivery by id. */
  findDelivery(id: string): Promise<DeliveryRow | null>
  /** The endpoint of a delivery that is still pending, or null (delivered, given up, or gone). */
  findPendingDeliveryEndpoint(id: string): Promise<string | null>
  /** Every delivery still to attempt, with when (loaded at start so nothing is lost across restarts). */
  listPendingDeliveries(): Promise<{ id: string; nextAttemptAtMs: number }[]>
  /** One page of an endpoint's deliveries, newest first (an operator view, so COUNT is acceptable). */
  listDeliveries(q: { endpointId: string; status?: DeliveryStatus; limit: number; offset: number }): Promise<{ rows: DeliveryRow[]; total: number }>
  /** An endpoint's newest delivery (one seek on the endpoint index), or null when it has none. */
  latestDelivery(endpointId: string): Promise<DeliveryRow | null>
  /** The events of one type an account recorded at one instant (a seek on the occurred index). */
  findEventsAt(accountId: string, env: Environment, type: string, occurredAtMs: number): Promise<EventRow[]>
  /**
   * The events of some types an account recorded from `fromMs` on whose body contains `text`,
   * oldest first, among the first `scanLimit` events of every account from `fromMs` on (a bounded
   * walk of the occurred index). `searchedUntilMs` is the instant of the last event looked at when
   * the walk stopped at its bound, null when it reached the newest event.
   */
  scanEventsMentioning(q: EventScan): Promise<{ events: EventRow[]; searchedUntilMs: number | null }>
  /** Every delivery of one event (to each endpoint, resends included). */
  listDeliveriesOfEvent(eventId: string): Promise<DeliveryRow[]>
  /**
   * One keyset page of an endpoint's deliveries, newest first, strictly older than `before` (a
   * seek on the endpoint index at any depth: no OFFSET, no count).
   */
  /** An endpoint's deliveries newest first, keyset-paged, optionally of one status and of some event types. */
  listDeliveriesWindow(q: DeliveryWindowQuery): Promise<DeliveryRow[]>
  /** Records one attempt. */
  insertAttempt(row: AttemptRow): Promise<void>
  /**
   * Records a wave of attempts and the progress of their deliveries with set-based statements
   * (multi-row INSERTs, and UPDATEs joined to a VALUES list, up to 64 rows each) instead of two
   * statements per attempt. Run it inside one write transaction. An attempt whose delivery is gone,
   * or whose number is already recorded (two nodes attempted it), is skipped, not an error.
   */
  recordAttempts(attempts: readonly AttemptRow[], progress: readonly DeliveryProgress[]): Promise<void>
  /**
   * Inserts events and their deliveries with multi-row INSERTs (up to 64 rows each), as a sandbox
   * sweep's many transitions need, instead of one statement per row. Run it inside the write
   * transaction of the state change the events announce.
   */
  insertEventsAndDeliveries(events: readonly EventRow[], deliveries: readonly DeliveryRow[]): Promise<void>
  /** A delivery's attempts, in order. */
  listAttempts(deliveryId: string): Promise<AttemptRow[]>
  /**
   * Deletes up to `limit` events that occurred before `cutoffMs` and are done with, with their
   * deliveries and attempts; returns how many events. Events after `keepAfter` (the RabbitMQ
   * publisher's cursor, when it publishes) are not done with.
   */
  pruneEvents(cutoffMs: number, limit: number, keepAfter?: string | null): Promise<number>
}


/** Every query, as one flat set of methods: `store.findMessage(id)`, and the same on a transaction. */
export interface StoreQueries
  extends AccountsQueries, ApiKeysQueries, DashboardSessionsQueries, InboundQueries, MessageActionsQueries, MessagePartsQueries,
    MessagesQueries, PhonesQueries, RepliesQueries, SendJobsQueries, SettingsQueries, StatsQueries, UsageQueries, WaAuthQueries,
    WaResendQueries, MessageSecretsQueries, WebhooksQueries, DeliveryClaimQueries, LeaseQueries, RateBucketsQueries, WaContactsQueries,
    PollsQueries, CallsQueries, SandboxGroupsQueries, SandboxBlocksQueries, ChatsQueries, HistorySettingsQueries, LabelsQueries,
    EventStreamsQueries, AmqpPublisherQueries {}

/** What a write can ask of its transaction. */
export interface WriteTx {
  /**
   * Runs `fn` once the transaction has committed (never if it rolls back): the place to start
   * in-memory work, such as scheduling a timer, about rows that must be durable first.
   */
  afterCommit(fn: () => void): void
  /**
   * Sends `payload` on `channel` once the transaction commits (never if it rolls back), to every
   * listener of every node on the database, this process's included (`Store.listen`). The same
   * payload on the same channel is sent once per transaction, however often it is asked for.
   */
  notify(channel: SignalChannel, payload: string): void
}

/**
 * The channels of signals between nodes (docs/architecture.md § "Nodes and leases"): `send_jobs`
 * carries the id of a phone that has a new live send queued, so that whichever node holds the
 * phone sends it; `pairing` carries a phone's new pairing state from the node holding it (JSON,
 * src/domain/pairing-relay.ts), and `pairing_wanted` the id of a phone whose holder is asked to
 * publish its current one, so that live pages work on every node; `events` carries
 * `<accountId>|<environment>` whose events were committed, so that the event streams of that
 * account on every node read the log at once (src/webhooks/event-wake.ts).
 */
export type SignalChannel = "send_jobs" | "pairing" | "pairing_wanted" | "events"

/**
 * A write's body: its statements go through `q`, which is bound to the write's transaction. It
 * may await only `q`'s methods (and work of its own with no I/O): on SQLite every write of a
 * turn shares one transaction, which a body waiting on the network would hold open.
 */
export type WriteBody<T> = (q: StoreQueries, tx: WriteTx) => Promise<T>

/** Work that joins a commit just before it; returns what to do if that commit fails. */
export type BeforeCommit = (q: StoreQueries, tx: WriteTx) => Promise<(() => void) | void>

export interface WriteOptions {
  /**
   * The cached tables the write changes: once it commits, every cache of them is invalidated, in
   * this process at once and on other nodes through the database, so no caller has to remember to.
   */
  changed?: readonly CachedTable[]
}

/** The database behind wagate: its queries, its writes, and what an operator asks of it. */
export interface Store extends StoreQueries {
  /**
   * Which implementation this is, for logs, `/readyz` and `wagate doctor`; never for branching
   * (what may differ between one process and several nodes is decided by `sharedByNodes`).
   */
  readonly kind: "sqlite" | "postgres"
  /** Runs `fn` in a transaction; resolves with its result once committed. A body that throws rolls back alone. */
  write<T>(fn: WriteBody<T>, options?: WriteOptions): Promise<T>
  /**
   * Runs `fn` just before commits, in a savepoint of its own, so a write that can wait rides along
   * with the next commit instead of paying one of its own. A `fn` that throws is rolled back alone.
   */
  beforeCommit(fn: BeforeCommit): void
  /** Commits what is pending now (used at shutdown and by batching callers). */
  flush(): Promise<void>
  /** A token that differs whenever cached rows (CachedTable) may have changed, here or on another node. */
  changeVersion(): string
  /**
   * Whether several processes may use this database at once: false for the SQLite file (the data
   * directory's lock gives it to one process), true for PostgreSQL. The composition root picks,
   * by this, what one node may keep to itself (phone ownership, rate-limit buckets).
   */
  readonly sharedByNodes: boolean
  /**
   * Calls `onSignal` with the payload of every committed `tx.notify` on `channel`, from any node.
   * Signals are a hint, not a queue: one sent while this node's listening connection is down is
   * lost, so `onResubscribed` runs whenever the listening is (re)established and the caller
   * rescans what it may have missed. Resolves with the unsubscribe once listening.
   */
  listen(channel: SignalChannel, onSignal: (payload: string) => void, onResubscribed?: () => void): Promise<() => Promise<void>>
  /** Resolves when the database answers a trivial query; rejects when it is unreachable (`/readyz`). */
  ping(): Promise<void>
  /** Commits what is pending and closes the connections. */
  close(): Promise<void>
}
