import type { Database } from "bun:sqlite"
import type { ChangeTracker } from "./change-tracker"
import type { Writer, WriteTx as WriterTx } from "./writer"
import type { AccountsQueries, ApiKeysQueries, DashboardSessionsQueries, DeliveryClaimQueries, InboundQueries, MessageActionsQueries, MessagePartsQueries, MessagesQueries, PhonesQueries, RateBucketsQueries, RepliesQueries, WaContactsQueries, SendJobsQueries, SettingsQueries, StatsQueries, StoreQueries, UsageQueries, WaAuthQueries, WaResendQueries, MessageSecretsQueries, WebhooksQueries, SandboxGroupsQueries, SandboxBlocksQueries, Store, SignalChannel, WriteTx, CallsQueries } from "../store"

/*
 * The SQLite implementation of the store's seam: the statements of src/store/<group>.ts run
 * synchronously on the one connection, and every write goes through the group-commit writer
 * (src/store/sqlite/writer.ts). The methods are async only to match the seam; they finish before they
 * return, so a write's body never waits on I/O and its batch's transaction stays short.
 */

import * as accounts from "./accounts"
import * as api_keys from "./api-keys"
import * as dashboard_sessions from "./dashboard-sessions"
import * as delivery_claims from "./delivery-claims"
import * as inbound from "./inbound"
import type { LeaseQueries } from "../leases"
import * as leases from "./leases"
import * as message_actions from "./message-actions"
import * as message_parts from "./message-parts"
import * as messages from "./messages"
import * as phones from "./phones"
import * as rate_buckets from "./rate-buckets"
import * as wa_contacts from "./wa-contacts"
import * as calls from "./calls"
import * as sandbox_groups from "./sandbox-groups"
import * as sandbox_blocks from "./sandbox-blocks"
import * as labels from "./labels"
import { sqliteEventStreamsQueries } from "./event-streams"
import { sqliteAmqpPublisherQueries } from "./amqp-publisher"
import type { LabelsQueries } from "../labels"
import * as replies from "./replies"
import * as send_jobs from "./send-jobs"
import * as settings from "./settings"
import * as stats from "./stats"
import * as usage from "./usage"
import * as wa_auth from "./wa-auth"
import * as wa_resend from "./wa-resend"
import * as message_secrets from "./message-secrets"
import * as polls from "./polls"
import * as chats from "./chats"
import { sqliteHistorySettingsQueries } from "./history-settings"
import type { ChatsQueries } from "../chats"
import type { PollsQueries } from "../polls"
import * as webhooks from "./webhooks"

function accountsQueries(db: Database): AccountsQueries {
  return {
    insertAccount: async (row) => accounts.insertAccount(db, row),
    findAccount: async (id) => accounts.findAccount(db, id),
    listAccounts: async () => accounts.listAccounts(db),
    updateAccount: async (row) => accounts.updateAccount(db, row),
    countActiveKeys: async (accountId, nowMs) => accounts.countActiveKeys(db, accountId, nowMs),
    countPhones: async (accountId) => accounts.countPhones(db, accountId),
  }
}

function apiKeysQueries(db: Database): ApiKeysQueries {
  return {
    insertApiKey: async (row) => api_keys.insertApiKey(db, row),
    findApiKeyByHash: async (keyHash) => api_keys.findApiKeyByHash(db, keyHash),
    findApiKey: async (id) => api_keys.findApiKey(db, id),
    listApiKeys: async (accountId) => api_keys.listApiKeys(db, accountId),
    revokeApiKey: async (id, nowMs) => api_keys.revokeApiKey(db, id, nowMs),
    touchApiKey: async (id, usedAtMs) => api_keys.touchApiKey(db, id, usedAtMs),
  }
}

function dashboardSessionsQueries(db: Database): DashboardSessionsQueries {
  return {
    insertDashboardSession: async (row) => dashboard_sessions.insertDashboardSession(db, row),
    findDashboardSession: async (idHash) => dashboard_sessions.findDashboardSession(db, idHash),
    touchDashboardSession: async (idHash, seenAtMs) => dashboard_sessions.touchDashboardSession(db, idHash, seenAtMs),
    deleteDashboardSession: async (idHash) => dashboard_sessions.deleteDashboardSession(db, idHash),
    deleteAllDashboardSessions: async () => dashboard_sessions.deleteAllDashboardSessions(db),
    deleteIdleDashboardSessions: async (cutoffMs) => dashboard_sessions.deleteIdleDashboardSessions(db, cutoffMs),
  }
}

function deliveryClaimQueries(db: Database): DeliveryClaimQueries {
  return {
    claimDueDeliveries: async (nodeId, nowMs, limit, leaseMs, exceptEndpointIds, silentBeforeMs) =>
      delivery_claims.claimDueDeliveries(db, nodeId, nowMs, limit, leaseMs, exceptEndpointIds, silentBeforeMs),
    hasClaimableDeliveries: async (nowMs, exceptEndpointIds, silentBeforeMs) => delivery_claims.hasClaimableDeliveries(db, nowMs, exceptEndpointIds, silentBeforeMs),
    releaseClaims: async (nodeId, ids) => delivery_claims.releaseClaims(db, nodeId, ids),
  }
}

function inboundQueries(db: Database): InboundQueries {
  return {
    findScopedInbound: async (accountId, env, id) => inbound.findScopedInbound(db, accountId, env, id),
    listInbound: async (q) => inbound.listInbound(db, q),
    insertInbound: async (row) => inbound.insertInbound(db, row),
    listInboundWindow: async (q) => inbound.listInboundWindow(db, q),
    findInbound: async (id) => inbound.findInbound(db, id),
    findInboundByWaId: async (phoneId, waMessageId) => inbound.findInboundByWaId(db, phoneId, waMessageId),
    markInboundEdited: async (id, content, editedAtMs) => inbound.markInboundEdited(db, id, content, editedAtMs),
    markInboundRevoked: async (id, revokedAtMs) => inbound.markInboundRevoked(db, id, revokedAtMs),
    updateInboundMediaDescriptor: async (id, media) => inbound.updateInboundMediaDescriptor(db, id, media),
    markInboundMediaGone: async (id, atMs) => inbound.markInboundMediaGone(db, id, atMs),
    recordReaction: async (targetId, fromAddress, emoji, atMs) => inbound.recordReaction(db, targetId, fromAddress, emoji, atMs),
    listReactions: async (targetId) => inbound.listReactions(db, targetId),
  }
}

function leaseQueries(db: Database): LeaseQueries {
  return {
    registerNode: async (registration) => leases.registerNode(db, registration),
    renewLeases: async (node, nowMs, leaseMs) => leases.renewLeases(db, node, nowMs, leaseMs),
    claimPhones: async (node, limit, nowMs, leaseMs) => leases.claimPhones(db, node, limit, nowMs, leaseMs),
    claimPhone: async (node, phoneId, nowMs, leaseMs) => leases.claimPhone(db, node, phoneId, nowMs, leaseMs),
    releaseUnneededLease: async (node, phoneId, nowMs) => leases.releaseUnneededLease(db, node, phoneId, nowMs),
    releaseNode: async (node, nowMs) => leases.releaseNode(db, node, nowMs),
    assertLease: async (phoneId, nodeId, token, nowMs) => leases.assertLease(db, phoneId, nodeId, token, nowMs),
    listNodes: async (nowMs) => leases.listNodes(db, nowMs),
    nodeUrl: async (nodeId) => leases.nodeUrl(db, nodeId),
    countUnownedPhones: async (nowMs) => leases.countUnownedPhones(db, nowMs),
    // One connection, read synchronously: nothing can commit between the two reads.
    leaseCensus: async (nowMs) => ({ nodes: leases.listNodes(db, nowMs), unowned: leases.countUnownedPhones(db, nowMs) }),
    listPhoneLeases: async () => leases.listPhoneLeases(db),
  }
}

function messageActionsQueries(db: Database): MessageActionsQueries {
  return {
    markMessageEdited: async (messageId, content, editedAtMs) => message_actions.markMessageEdited(db, messageId, content, editedAtMs),
    markMessageRevoked: async (messageId, revokedAtMs) => message_actions.markMessageRevoked(db, messageId, revokedAtMs),
    listUnreadInChat: async (phoneId, chat, throughSeq, limit) => message_actions.listUnreadInChat(db, phoneId, chat, throughSeq, limit),
    markChatReadThrough: async (phoneId, chat, throughSeq, readAtMs) => message_actions.markChatReadThrough(db, phoneId, chat, throughSeq, readAtMs),
    inboundReadAtMs: async (inboundId) => message_actions.inboundReadAtMs(db, inboundId),
  }
}

function messagePartsQueries(db: Database): MessagePartsQueries {
  return {
    insertPart: async (row) => message_parts.insertPart(db, row),
    setPartMediaKind: async (messageId, partIndex, mediaKind) => message_parts.setPartMediaKind(db, messageId, partIndex, mediaKind),
    listParts: async (messageId) => message_parts.listParts(db, messageId),
    findPartByWaId: async (waMessageId) => message_parts.findPartByWaId(db, waMessageId),
    updatePart: async (row) => message_parts.updatePart(db, row),
  }
}

function messagesQueries(db: Database): MessagesQueries {
  return {
    insertMessage: async (row) => messages.insertMessage(db, row),
    updateMessageStatuses: async (changes, nowMs) => messages.updateMessageStatuses(db, changes, nowMs),
    listSandboxDueMessages: async (nowMs, limit) => messages.listSandboxDueMessages(db, nowMs, limit),
    nextSandboxDueMs: async () => messages.nextSandboxDueMs(db),
    nextSandboxDueAfterMs: async (afterMs) => messages.nextSandboxDueAfterMs(db, afterMs),
    findMessage: async (id) => messages.findMessage(db, id),
    findMessages: async (ids) => messages.findMessages(db, ids),
    findScopedMessage: async (accountId, env, id) => messages.findScopedMessage(db, accountId, env, id),
    findMessageByIdempotencyKey: async (accountId, env, key) => messages.findMessageByIdempotencyKey(db, accountId, env, key),
    listMessages: async (q) => messages.listMessages(db, q),
    countMessages: async (accountId, env) => messages.countMessages(db, accountId, env),
    countMessagesSince: async (accountId, env, fromDayMs) => messages.countMessagesSince(db, accountId, env, fromDayMs),
    listMessagesWindow: async (q) => messages.listMessagesWindow(db, q),
    dailyMessageCounts: async (accountId, env, fromDayMs) => messages.dailyMessageCounts(db, accountId, env, fromDayMs),
  }
}

function phonesQueries(db: Database): PhonesQueries {
  return {
    insertPhone: async (row) => phones.insertPhone(db, row),
    findPhoneByRef: async (accountId, ref) => phones.findPhoneByRef(db, accountId, ref),
    findPhone: async (id) => phones.findPhone(db, id),
    findPhoneByNumber: async (phoneNumber) => phones.findPhoneByNumber(db, phoneNumber),
    listPhones: async (accountId) => phones.listPhones(db, accountId),
    deletePhone: async (id) => phones.deletePhone(db, id),
    updatePhoneLastError: async (id, error) => phones.updatePhoneLastError(db, id, error),
    updatePhoneOfflineWatchdog: async (id, atMs) => phones.updatePhoneOfflineWatchdog(db, id, atMs),
    updatePhoneWaVersion: async (id, waVersion) => phones.updatePhoneWaVersion(db, id, waVersion),
    updatePhoneClientExpiry: async (id, waVersion, expiresAtMs) => phones.updatePhoneClientExpiry(db, id, waVersion, expiresAtMs),
    updatePhoneConnection: async (row, staysOffline) => phones.updatePhoneConnection(db, row, staysOffline),
    listPhonesStayingOffline: async () => phones.listPhonesStayingOffline(db),
    listAllPhones: async () => phones.listAllPhones(db),
  }
}

function waContactsQueries(db: Database): WaContactsQueries {
  return {
    upsertWaContact: async (row) => wa_contacts.upsertWaContact(db, row),
    findWaContact: async (phoneId, address) => wa_contacts.findWaContact(db, phoneId, address),
    listWaContacts: async (phoneId, limit) => wa_contacts.listWaContacts(db, phoneId, limit),
  }
}

function callsQueries(db: Database): CallsQueries {
  return {
    insertCall: async (call) => calls.insertCall(db, call),
    findCall: async (phoneId, env, callId) => calls.findCall(db, phoneId, env, callId),
    endCall: async (phoneId, callId, outcome, endedAtMs) => calls.endCall(db, phoneId, callId, outcome, endedAtMs),
    pruneCalls: async (phoneId, beforeMs) => calls.pruneCalls(db, phoneId, beforeMs),
    findCallPolicy: async (phoneId) => calls.findCallPolicy(db, phoneId),
    saveCallPolicy: async (policy) => calls.saveCallPolicy(db, policy),
    claimCallReply: async (phoneId, env, caller, nowMs, windowMs) => calls.claimCallReply(db, phoneId, env, caller, nowMs, windowMs),
  }
}

function sandboxGroupsQueries(db: Database): SandboxGroupsQueries {
  return {
    putSandboxGroup: async (row) => sandbox_groups.putSandboxGroup(db, row),
    findSandboxGroup: async (accountId, groupId) => sandbox_groups.findSandboxGroup(db, accountId, groupId),
    findSandboxGroupByIdempotencyKey: async (accountId, key) => sandbox_groups.findSandboxGroupByIdempotencyKey(db, accountId, key),
    listSandboxGroups: async (accountId) => sandbox_groups.listSandboxGroups(db, accountId),
    insertGroupCreation: async (row) => sandbox_groups.insertGroupCreation(db, row),
    findGroupCreation: async (accountId, key) => sandbox_groups.findGroupCreation(db, accountId, key),
  }
}

function labelsQueries(db: Database): LabelsQueries {
  return {
    upsertLabel: async (row) => labels.upsertLabel(db, row),
    listLabels: async (phoneId, env, options) => labels.listLabels(db, phoneId, env, options?.withDeleted ?? false),
  }
}

function sandboxBlocksQueries(db: Database): SandboxBlocksQueries {
  return {
    setSandboxBlock: async (phoneId, contact, blocked, atMs) => sandbox_blocks.setSandboxBlock(db, phoneId, contact, blocked, atMs),
    listSandboxBlocks: async (phoneId) => sandbox_blocks.listSandboxBlocks(db, phoneId),
  }
}

function rateBucketsQueries(db: Database): RateBucketsQueries {
  return {
    drawRateTokens: async (draw) => rate_buckets.drawRateTokens(db, draw),
  }
}

function repliesQueries(db: Database): RepliesQueries {
  return {
    listRepliesTo: async (targetId, limit) => replies.listRepliesTo(db, targetId, limit),
  }
}

function sendJobsQueries(db: Database): SendJobsQueries {
  return {
    insertSendJob: async (row) => send_jobs.insertSendJob(db, row),
    deleteSendJob: async (messageId) => send_jobs.deleteSendJob(db, messageId),
    listSendJobs: async (phoneId) => send_jobs.listSendJobs(db, phoneId),
    listPhonesWithJobs: async () => send_jobs.listPhonesWithJobs(db),
  }
}

function settingsQueries(db: Database): SettingsQueries {
  return {
    getSetting: async (key) => settings.getSetting(db, key),
    setSetting: async (key, value) => settings.setSetting(db, key, value),
    insertSettingUnlessSet: async (key, value) => settings.insertSettingUnlessSet(db, key, value),
  }
}

function statsQueries(db: Database): StatsQueries {
  return {
    messagesByEnvAndStatus: async () => stats.messagesByEnvAndStatus(db),
    phonesByStatus: async () => stats.phonesByStatus(db),
    pendingDeliveries: async () => stats.pendingDeliveries(db),
  }
}

function usageQueries(db: Database): UsageQueries {
  return {
    addApiRequestCounts: async (counts) => usage.addApiRequestCounts(db, counts),
    sumApiRequestsSince: async (accountId, env, fromDayMs) => usage.sumApiRequestsSince(db, accountId, env, fromDayMs),
  }
}

function waAuthQueries(db: Database): WaAuthQueries {
  return {
    readCreds: async (phoneId) => wa_auth.readCreds(db, phoneId),
    upsertCreds: async (phoneId, data, updatedAtMs) => wa_auth.upsertCreds(db, phoneId, data, updatedAtMs),
    hasCreds: async (phoneId) => wa_auth.hasCreds(db, phoneId),
    getKeys: async (phoneId, type, ids) => wa_auth.getKeys(db, phoneId, type, ids),
    setKeys: async (phoneId, changes) => wa_auth.setKeys(db, phoneId, changes),
    wipeAuth: async (phoneId) => wa_auth.wipeAuth(db, phoneId),
    countKeys: async (phoneId) => wa_auth.countKeys(db, phoneId),
  }
}

function waResendQueries(db: Database): WaResendQueries {
  return {
    saveSentWaMessage: async (row) => wa_resend.saveSentWaMessage(db, row),
    loadSentWaMessage: async (phoneId, waMessageId) => wa_resend.loadSentWaMessage(db, phoneId, waMessageId),
    pruneSentWaMessages: async (cutoffMs, limit) => wa_resend.pruneSentWaMessages(db, cutoffMs, limit),
  }
}

function messageSecretsQueries(db: Database): MessageSecretsQueries {
  return {
    saveMessageSecrets: async (rows) => message_secrets.saveMessageSecrets(db, rows),
    findMessageSecrets: async (phoneId, waMessageId) => message_secrets.findMessageSecrets(db, phoneId, waMessageId),
    pruneMessageSecrets: async (cutoffMs, limit) => message_secrets.pruneMessageSecrets(db, cutoffMs, limit),
  }
}

function pollsQueries(db: Database): PollsQueries {
  return {
    insertPoll: async (row) => polls.insertPoll(db, row),
    findPoll: async (messageId) => polls.findPoll(db, messageId),
    findPollByWaId: async (phoneId, waMessageId) => polls.findPollByWaId(db, phoneId, waMessageId),
    upsertPollVote: async (row) => polls.upsertPollVote(db, row),
    listPollVotes: async (phoneId, pollWaMessageId) => polls.listPollVotes(db, phoneId, pollWaMessageId),
    savePendingVote: async (row) => polls.savePendingVote(db, row),
    listPendingVotes: async (phoneId, pollWaMessageId) => polls.listPendingVotes(db, phoneId, pollWaMessageId),
    deletePendingVote: async (phoneId, pollWaMessageId, voteWaMessageId) => polls.deletePendingVote(db, phoneId, pollWaMessageId, voteWaMessageId),
    countPendingVotes: async () => polls.countPendingVotes(db),
  }
}

function chatsQueries(db: Database): ChatsQueries {
  return {
    listChats: async (q) => chats.listChats(db, q),
    findChat: async (phoneId, env, chatId) => chats.findChat(db, phoneId, env, chatId),
    applyChatChange: async (phoneId, env, chatId, change, atMs) => chats.applyChatChange(db, phoneId, env, chatId, change, atMs),
    recordEchoMessage: async (row) => chats.recordEchoMessage(db, row),
    recordHistoryBatch: async (rows) => chats.recordHistoryBatch(db, rows),
    listTimeline: async (q) => chats.listTimeline(db, q),
    listReactionsFor: async (targetIds) => chats.listReactionsFor(db, targetIds),
    upsertContacts: async (rows) => chats.upsertContacts(db, rows),
    pruneChatMessages: async (cutoffMs, limit) => chats.pruneChatMessages(db, cutoffMs, limit),
    findChatMessage: async (id) => chats.findChatMessage(db, id),
    listContacts: async (q) => chats.listContacts(db, q),
  }
}

function webhooksQueries(db: Database): WebhooksQueries {
  return {
    insertEndpoint: async (row) => webhooks.insertEndpoint(db, row),
    updateEndpoint: async (row) => webhooks.updateEndpoint(db, row),
    deleteEndpoint: async (id) => webhooks.deleteEndpoint(db, id),
    findEndpoint: async (id) => webhooks.findEndpoint(db, id),
    listEndpoints: async (accountId) => webhooks.listEndpoints(db, accountId),
    listEnabledEndpoints: async (accountId, env) => webhooks.listEnabledEndpoints(db, accountId, env),
    insertEvent: async (row) => webhooks.insertEvent(db, row),
    findEvent: async (id) => webhooks.findEvent(db, id),
    insertDelivery: async (row) => webhooks.insertDelivery(db, row),
    updateDelivery: async (row) => webhooks.updateDelivery(db, row),
    findDelivery: async (id) => webhooks.findDelivery(db, id),
    findPendingDeliveryEndpoint: async (id) => webhooks.findPendingDeliveryEndpoint(db, id),
    listPendingDeliveries: async () => webhooks.listPendingDeliveries(db),
    listDeliveries: async (q) => webhooks.listDeliveries(db, q),
    latestDelivery: async (endpointId) => webhooks.latestDelivery(db, endpointId),
    findEventsAt: async (accountId, env, type, occurredAtMs) => webhooks.findEventsAt(db, accountId, env, type, occurredAtMs),
    scanEventsMentioning: async (q) => webhooks.scanEventsMentioning(db, q),
    listDeliveriesOfEvent: async (eventId) => webhooks.listDeliveriesOfEvent(db, eventId),
    listDeliveriesWindow: async (q) => webhooks.listDeliveriesWindow(db, q),
    insertAttempt: async (row) => webhooks.insertAttempt(db, row),
    recordAttempts: async (attempts, progress) => webhooks.recordAttempts(db, attempts, progress),
    insertEventsAndDeliveries: async (events, deliveries) => webhooks.insertEventsAndDeliveries(db, events, deliveries),
    listAttempts: async (deliveryId) => webhooks.listAttempts(db, deliveryId),
    pruneEvents: async (cutoffMs, limit, keepAfter) => webhooks.pruneEvents(db, cutoffMs, limit, keepAfter ?? null),
  }
}

/** Every query of the seam, run on `db` (the writer's connection, so inside its open transaction when one is). */
export function sqliteQueries(db: Database): StoreQueries {
  // One group per line, so that a new group is a one-line change.
  return {
    ...accountsQueries(db),
    ...apiKeysQueries(db),
    ...dashboardSessionsQueries(db),
    ...inboundQueries(db),
    ...messageActionsQueries(db),
    ...messagePartsQueries(db),
    ...messagesQueries(db),
    ...phonesQueries(db),
    ...repliesQueries(db),
    ...sendJobsQueries(db),
    ...settingsQueries(db),
    ...statsQueries(db),
    ...usageQueries(db),
    ...waAuthQueries(db),
    ...waResendQueries(db),
    ...messageSecretsQueries(db),
    ...webhooksQueries(db),
    ...deliveryClaimQueries(db),
    ...leaseQueries(db),
    ...rateBucketsQueries(db),
    ...waContactsQueries(db),
    ...pollsQueries(db),
    ...callsQueries(db),
    ...sandboxGroupsQueries(db),
    ...sandboxBlocksQueries(db),
    ...chatsQueries(db),
    ...sqliteHistorySettingsQueries(db),
    ...labelsQueries(db),
    ...sqliteEventStreamsQueries(db),
    ...sqliteAmqpPublisherQueries(db),
  }
}

/** The seam over one SQLite connection, its writer and its change tracker. */
export function createSqliteStore(deps: { db: Database; writer: Writer; changes: ChangeTracker }): Store {
  const { db, writer, changes } = deps
  const queries = sqliteQueries(db)
  // One process has the file, so a signal reaches only this process's listeners, after the commit.
  const listeners = new Map<SignalChannel, Set<(payload: string) => void>>()
  const signalling = (tx: WriterTx): WriteTx => {
    // Once per payload and write, as PostgreSQL folds a transaction's identical notifications.
    const sent = new Set<string>()
    return {
      afterCommit: (fn) => tx.afterCommit(fn),
      notify: (channel, payload) => {
        const key = `${channel}\n${payload}`
        if (sent.has(key)) return
        sent.add(key)
        tx.afterCommit(() => listeners.get(channel)?.forEach((listener) => listener(payload)))
      },
    }
  }
  return {
    ...queries,
    kind: "sqlite",
    sharedByNodes: false,
    write: (fn, options) => writer.write((_db, tx) => fn(queries, signalling(tx)), options),
    beforeCommit: (fn) => writer.beforeCommit((_db, tx) => fn(queries, signalling(tx))),
    async listen(channel, onSignal) {
      let set = listeners.get(channel)
      if (!set) listeners.set(channel, (set = new Set()))
      set.add(onSignal)
      return async () => void set.delete(onSignal)
    },
    flush: () => writer.flush(),
    changeVersion: () => changes.version(),
    ping: async () => void db.query("SELECT 1").get(),
    close: async () => {
      await writer.flush()
      db.close()
    },
  }
}
