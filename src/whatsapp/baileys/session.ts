import { modifyChat as modifyChatOn } from "./chat-modify"
import * as labels from "./labels"
import { appStateHandler } from "./app-state"
import type { BaileysEventMap, CacheStore, SocketConfig, WASocket } from "@whiskeysockets/baileys"
import type { Clock } from "../../lib/clock"
import { isoDay, toIso } from "../../lib/time"
import type { PresenceState } from "../../lib/vocabulary"
import type { Logger } from "../../lib/logger"
import type { Store } from "../../store/store"
import type { ConnectionFailure } from "../failures"
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_OFFLINE_MARKER_WAIT_MS,
  type ChatModification,
  type DisconnectReason,
  type GroupInfo,
  type GroupNotice,
  type OutboundPart,
  PollSecretMissingError,
  type PollVoteSeen,
  type SessionEvents,
  type WaMessageRef,
  type WhatsAppSession,
} from "../gateway"
import type { LeaseFence } from "../../store/leases"
import { loadAuthState, storedCredsArePaired, type BaileysModule, type SqliteAuthState } from "./auth-state"
import type { SignalKeyCache } from "./key-cache"
import { baileysGroups } from "./groups"
import { failureCause, failureOf, upgradeRefusedError } from "./close-errors"
import {
  closeMessage,
  chatStateOf,
  closeStatusCode,
  decideDisconnect,
  decodeJid,
  isIgnoredJid,
  mapGroups,
  mapInboundUpsert,
  mapMessageUpdates,
  mapOwnUpserts,
  mapReceiptUpdates,
  mapServerAck,
  type AckNode,
  type OutboundSignal,
} from "./mapping"
import { kindContent, sendOptions, withMentions } from "./part-kinds"
import { editContent, reactionContent, revokeContent, waKeyOf } from "./message-actions"
import { createResendStore, type ResendStore } from "./resend-store"
import { createMessageSecrets, type MessageSecrets } from "./message-secrets"
import { createPollVotes, pollIdsOf, sealOurVote, type PollVotes } from "./poll-votes"
import type { Counter } from "../../lib/metrics"
import { formatWaVersion, type WaVersion, type WaVersionChooser } from "./wa-version"
import { clientExpirationOf, type ExpirationNotices, type IbNode } from "./client-expiration"
import { createAdvRotation, type AdvRotation, type NotificationNode } from "./adv-rotation"
import { PASSKEY_REQUEST_TYPE, passkeyRequestCause, passkeyRequestOf } from "./passkey-gate"
import { isOneToOne, privacyTokenAttached, PrivacyTokenLedger } from "./privacy-token"
import { mapRawDeliveryReceipt, type ReceiptNode } from "./raw-receipts"
import { LidRefresher, socketLidDirectory } from "./lid-refresh"
import { mapInboundActions } from "./inbound-actions"
import { mapEchoUpsert } from "./echo"
import { mapCalls } from "./calls"
import { parseDescriptor } from "./inbound-details"
import * as contacts from "./contacts"
import { downloadMedia, reuploadMedia } from "./media-download"
import { baileysReadsHistory, createHistoryIngest, type HistoryIngest } from "./history-ingest"
import { sendMediaPart } from "./media-message"
import * as profileActions from "./profile-actions"
import { createOfflineWatchdog, type OfflineWatchdog } from "./offline-watchdog"
import { mapGroupNotification, mapPictureNotification, withJoinedSubject } from "./group-notices"

/** How long close() and logout() wait for the socket to finish closing before they report it closed anyway. */
export const CLOSE_TIMEOUT_MS = 1_500
/** How many rejected ids a session remembers, so one error ack seen twice (raw and as an update) is reported once. */
const REJECTED_IDS_REMEMBERED = 1_000

/** Raised by sendPart, checkNumbers and fetchGroups when the socket is not open. */
export class SessionNotConnectedError extends Error {
  constructor(readonly phoneId: string) {
    super(`WhatsApp session of phone ${phoneId} is not connected`)
    this.name = "SessionNotConnectedError"
  }
}

/** The settings a Baileys gateway is created with and hands on to each of its sessions. */
export interface SessionSettings {
  /** The store: credentials, Signal keys and sent messages (on SQLite reads see the writes of the open batch). */
  store: Store
  clock: Clock
  logger: Logger
  /** WhatsApp's WebSocket endpoint; tests point it at a local simulator. */
  wsUrl: string
  /**
   * The WhatsApp Web version to announce (a stale one closes with 405): `auto` (the default)
   * looks the current one up when the WebSocket is WhatsApp's, else uses Baileys' built-in one.
   */
  waVersion?: WaVersion | "auto"
  /** How long opening the socket and the handshake may take; DEFAULT_CONNECT_TIMEOUT_MS by default. */
  connectTimeoutMs?: number
  /** How long after login the adapter waits for WhatsApp's offline marker before releasing held events; DEFAULT_OFFLINE_MARKER_WAIT_MS by default. */
  offlineMarkerWaitMs?: number
  /** Days each sent message is kept to answer retry receipts (resend-store.ts); 0 or absent keeps none. */
  waResendRetentionDays?: number
  /** Counts encrypted edits by result (message-secrets.ts): `wagate_encrypted_edits_total`. */
  encryptedEdits?: Counter
  /** Counts poll votes by result (poll-votes.ts): `wagate_poll_votes_total`. */
  pollVotes?: Counter
  /**
   * The lease a phone's credential and key writes must prove, read when its socket opens
   * (auth-state.ts); absent or null when one process owns every phone.
   */
  fenceOf?: (phoneId: string) => LeaseFence | null
  /** A fenced write of the phone was refused: another node owns it now. */
  onFenceRefused?: (phoneId: string) => void
}

/** What every session of one gateway shares. */
export interface SessionContext extends SessionSettings {
  /** Loads Baileys once per gateway (the first connect pays for the import). */
  baileys(): Promise<BaileysModule>
  /** The WhatsApp Web version the next connect announces, and a second look after a 405. */
  chooseWaVersion: WaVersionChooser
  /** Which client expiry each phone was last told, so it is logged once per date. */
  expirationNotices: ExpirationNotices
  /** The cache in front of every phone's Signal key store, bounded for all phones together. */
  signalKeyCache: SignalKeyCache
  /** The phone's retry counter cache, kept across reconnects (Baileys counts resends per message id). */
  retryCache(phoneId: string): CacheStore
  /**
   * The phone's group notifications already told, kept across reconnects: WhatsApp sends one
   * again after a reconnect when its acknowledgement was lost (group-notices.ts).
   */
  groupNoticeOnce(phoneId: string): (node: NotificationNode) => boolean
  /** Called when a session's socket is gone, so the gateway stops tracking it. */
  ended(phoneId: string, session: BaileysSession): void
}

type BaileysLogger = SocketConfig["logger"]

/** What Baileys logs at error when a connection ends; the close that follows carries the same error. */
const CONNECTION_END_LOGS: ReadonlySet<string> = new Set(["error in validating connection", "stream errored out"])

/**
 * A pino-compatible logger for Baileys that forwards warnings and errors to ours. Baileys is
 * chatty at info and below (every stanza at trace), and our logger redacts whatever it is given.
 */
export function bridgeLogger(logger: Logger, bindings: Record<string, unknown>): BaileysLogger {
  const forward = (level: "warn" | "error") => (obj: unknown, msg?: string) => {
    const text = typeof obj === "string" ? obj : (msg ?? "event")
    // The end of a connection is logged once, by the session manager, with its failure code.
    const to = CONNECTION_END_LOGS.has(text) ? "debug" : level
    if (typeof obj === "string") logger[to](`baileys: ${obj}`, bindings)
    else logger[to](`baileys: ${text}`, { ...bindings, detail: obj })
  }
  return {
    level: "warn",
    child: (more) => bridgeLogger(logger, { ...bindings, ...more }),
    trace() {},
    debug() {},
    info() {},
    warn: forward("warn"),
    error: forward("error"),
  }
}

/**
 * The Baileys content of a part that is text, a location or a contact card. Media never goes
 * through here: wagate encrypts and uploads the downloaded file itself (media-message.ts), so
 * Baileys is never handed a file or a URL to read.
 */
export function partContent(part: OutboundPart, pollSecret?: Uint8Array): Parameters<WASocket["sendMessage"]>[1] {
  const kind = kindContent(part, pollSecret)
  if (kind) return withMentions(kind, part)
  if (part.text !== undefined && part.media === undefined) return withMentions({ text: part.text }, part)
  throw new TypeError(`part ${part.waMessageId} has no text, location or contact card`)
}

/**
 * One phone's socket, from connect to its single `disconnected` report. A session never
 * reconnects by itself: the domain's session manager opens a new one (at once after 515, with
 * backoff otherwise, never after a terminal reason).
 */
export class BaileysSession implements WhatsAppSession {
  private sock: WASocket | null = null
  /** Group requests on the open socket (groups.ts). */
  readonly groups = baileysGroups(
    () => this.requireOpen(),
    async (sent) => await this.resend?.remember(sent),
  )
  private auth: SqliteAuthState | null = null
  private starting: Promise<void> | null = null
  private open = false
  /** The socket shows a QR or a pairing code: a 408 then means the pairing expired. */
  private pairing = false
  private closedByUs = false
  private ended = false
  /** The version this socket announces, once chosen (x.y.z). */
  private waVersion: string | null = null
  /** The same, as chosen: what a 405 refused. */
  private announced: WaVersion | null = null
  /** A 405 already brought one more connect with a newer version: the next is final. */
  private versionRetried = false
  /** How connect() was asked to pair, for the one more socket a 405 may bring. */
  private pairingRequest: { method: "qr" } | { method: "code"; phoneNumber: string } | undefined
  /** Rewrites QR codes to carry the live ADV secret and handles its rotation. */
  private rotation: AdvRotation | null = null
  /** The digits to request a pairing code for, when pairing by code. */
  private codeFor: string | null = null
  private codeRequested = false
  private readonly rejected = new Set<string>()
  /** Inbound mapping may await a LID lookup: a chain keeps messages in arrival order. */
  private inboundChain: Promise<void> = Promise.resolve()
  private readonly log: Logger
  private resend: ResendStore | null = null
  private secrets: MessageSecrets | null = null
  private pollVotes: PollVotes | null = null
  private historyIngest: HistoryIngest | null = null
  private watchdog: OfflineWatchdog | null = null
  /** The current socket's app-state events (app-state.ts), fed from its `ev.process` batches. */
  private appStateEvents: ((events: Partial<BaileysEventMap>) => void) | null = null
  /** Group notices in arrival order (group-notices.ts). */
  private groupChain: Promise<void> = Promise.resolve()
  /** Whether each recent 1:1 part carried the contact's privacy token, so a 463 says which case it is. */
  private readonly privacyTokens = new PrivacyTokenLedger()

  constructor(
    private readonly ctx: SessionContext,
    readonly phoneId: string,
    private readonly events: SessionEvents,
  ) {
    const bindings = { phoneId }
    this.log = {
      debug: (m, f) => ctx.logger.debug(m, { ...bindings, ...f }),
      info: (m, f) => ctx.logger.info(m, { ...bindings, ...f }),
      warn: (m, f) => ctx.logger.warn(m, { ...bindings, ...f }),
      error: (m, f) => ctx.logger.error(m, { ...bindings, ...f }),
    }
  }

  connect(pairing?: { method: "qr" } | { method: "code"; phoneNumber: string }): void {
    if (this.starting || this.ended) {
      this.log.warn("connect() called twice on one WhatsApp session; ignored")
      return
    }
    this.pairingRequest = pairing
    this.run(null)
  }

  /** Opens a socket (announcing `version`, else the chooser's); a failure to open ends the session. */
  private run(version: WaVersion | null): void {
    this.starting = this.start(this.pairingRequest, version).catch((err) => {
      // The domain logs the failure once, with its code, when it hears of it.
      this.log.debug("opening the WhatsApp socket failed", { err })
      void this.sock?.end(undefined)
      const reason: DisconnectReason = this.closedByUs ? "closed_by_us" : "connection_lost"
      this.finish(reason, reason === "closed_by_us", reason === "closed_by_us" ? null : { ...this.failureBase(), code: "connection_lost", cause: failureCause(err) })
    })
  }

  async close(): Promise<void> {
    this.closedByUs = true
    await this.starting
    await this.endSocket()
    this.finish("closed_by_us", true)
  }

  async logout(): Promise<void> {
    this.closedByUs = true
    await this.starting
    // Nothing may write the rows back once they are wiped.
    this.auth?.detach()
    const sock = this.sock
    if (sock && this.open) {
      try {
        await this.withCloseTimeout(sock.logout())
      } catch (err) {
        this.log.warn("unlinking the device from the phone failed; wiping the credentials anyway", { err })
      }
    }
    await this.endSocket()
    this.finish("closed_by_us", true)
    await this.ctx.store.write(async (q) => await q.wipeAuth(this.phoneId))
  }

  async sendPart(part: OutboundPart): Promise<void> {
    const sock = this.requireOpen()
    if (isOneToOne(part.toJid)) {
      // Unknown (a failing key store) is left unrecorded: a 463 then says wagate cannot tell.
      const attached = await privacyTokenAttached(sock, part.toJid, this.ctx.clock.nowMs()).catch(() => null)
      if (attached !== null) this.privacyTokens.note(part.waMessageId, attached)
    }
    const options = await sendOptions(part, async (id) => (this.resend ? this.resend.getMessage({ id }) : undefined))
    const sent = part.media
      ? await sendMediaPart(await this.ctx.baileys(), sock, { ...part, media: part.media }, options, { nowMs: () => this.ctx.clock.nowMs(), log: this.log })
      : await sock.sendMessage(part.toJid, partContent(part, part.poll ? await this.secrets?.secretForSend(part.waMessageId, part.toJid, sock.user ?? {}) : undefined), options)
    await this.resend?.remember(sent)
    await this.secrets?.rememberSent(sent, sock.user ?? {})
  }

  async checkNumbers(phoneNumbers: string[]): Promise<Map<string, string | null>> {
    const sock = this.requireOpen()
    const out = new Map<string, string | null>(phoneNumbers.map((n) => [n, null]))
    if (phoneNumbers.length === 0) return out
    const found = await this.onWhatsApp(sock, phoneNumbers)
    const digitsOf = (n: string) => n.replace(/\D/g, "")
    const asked = new Set(phoneNumbers.map(digitsOf))
    const byDigits = new Map(found.map((jid) => [decodeJid(jid)?.user ?? "", jid]))
    const unmatched = [...new Set(phoneNumbers.filter((n) => !byDigits.has(digitsOf(n))))]
    for (const n of phoneNumbers) out.set(n, byDigits.get(digitsOf(n)) ?? null)
    // WhatsApp may answer with another JID than the number asked (Brazil's ninth digit). Alone,
    // the leftover answer is that number's; in a batch, each unmatched number is asked alone.
    const leftovers = [...byDigits].filter(([digits]) => !asked.has(digits)).map(([, jid]) => jid)
    if (unmatched.length > 0 && leftovers.length > 0) {
      if (unmatched.length === 1 && leftovers.length === 1) out.set(unmatched[0]!, leftovers[0]!)
      else for (const n of unmatched) out.set(n, (await this.onWhatsApp(sock, [n]))[0] ?? null)
    }
    return out
  }

  async fetchGroups(): Promise<GroupInfo[]> {
    const sock = this.requireOpen()
    const groups = await sock.groupFetchAllParticipating()
    return mapGroups(groups, sock.user!)
  }

  async sendPresence(toJid: string, state: PresenceState): Promise<void> {
    const sock = this.requireOpen()
    await sock.sendPresenceUpdate(chatStateOf(state), toJid)
  }

  async react(target: WaMessageRef, emoji: string): Promise<void> {
    await this.sendAction(target.chatJid, reactionContent(target, emoji))
  }

  async editText(target: WaMessageRef, text: string): Promise<void> {
    await this.sendAction(target.chatJid, editContent(target, text))
  }

  async revoke(target: WaMessageRef): Promise<void> {
    await this.sendAction(target.chatJid, revokeContent(target))
  }

  async votePoll(target: WaMessageRef, optionHashes: string[]): Promise<void> {
    const sock = this.requireOpen()
    const baileys = await this.ctx.baileys()
    const rows = await this.ctx.store.findMessageSecrets(this.phoneId, target.waMessageId)
    const encode = (selectedOptions: Uint8Array[]) => baileys.proto.Message.PollVoteMessage.encode({ selectedOptions }).finish()
    const vote = sealOurVote({ target, optionHashes, atMs: this.ctx.clock.nowMs(), self: sock.user ?? {} }, rows, encode)
    if (!vote) throw new PollSecretMissingError()
    const full = baileys.generateWAMessageFromContent(target.chatJid, vote as never, { userJid: sock.user?.id ?? "" })
    await sock.relayMessage(target.chatJid, full.message!, { messageId: full.key.id! })
    await this.resend?.remember(full)
  }

  async rejectCall(callId: string, callerJid: string): Promise<void> {
    const sock = this.requireOpen()
    await sock.rejectCall(callId, callerJid)
  }

  async markRead(targets: WaMessageRef[]): Promise<void> {
    const sock = this.requireOpen()
    await sock.readMessages(targets.map(waKeyOf))
  }

  /** Sends a reaction, edit or revoke, kept like a part so a retry receipt for it is answered too. */
  private async sendAction(chatJid: string, content: Parameters<WASocket["sendMessage"]>[1]): Promise<void> {
    const sock = this.requireOpen()
    await this.resend?.remember(await sock.sendMessage(chatJid, content))
  }

  async downloadMedia(descriptor: string, path: string, maxBytes: number): Promise<number> {
    const sock = this.requireOpen()
    // The media host WhatsApp's server names, never one a sender's message suggests.
    const host = (await sock.refreshMediaConn(false)).hosts[0]?.hostname
    if (!host) throw new Error("WhatsApp named no media host")
    return downloadMedia({ descriptor: parseDescriptor(descriptor), host, path, maxBytes, clock: this.ctx.clock })
  }

  async reuploadMedia(descriptor: string): Promise<string> {
    const sock = this.requireOpen()
    return JSON.stringify(await reuploadMedia(sock, parseDescriptor(descriptor), this.ctx.clock))
  }

  async setPicture(groupJid: string | null, jpeg: Uint8Array): Promise<void> {
    await profileActions.setPicture(this.requireOpen(), groupJid, jpeg)
  }

  async removePicture(groupJid: string | null): Promise<void> {
    await profileActions.removePicture(this.requireOpen(), groupJid)
  }

  async setProfileName(name: string): Promise<void> {
    await profileActions.setProfileName(this.requireOpen(), name)
  }

  async setAbout(about: string): Promise<void> {
    await profileActions.setAbout(this.requireOpen(), about)
  }

  // Blocks and profiles (contacts.ts).
  fetchBlocklist = () => contacts.fetchBlocklist(this.requireOpen())
  setBlocked = (jid: string, blocked: boolean) => contacts.setBlocked(this.requireOpen(), jid, blocked)
  fetchAbout = (jid: string) => contacts.fetchAbout(this.requireOpen(), jid)
  fetchBusinessProfile = (jid: string) => contacts.fetchBusinessProfile(this.requireOpen(), jid)
  pictureOf = (jid: string) => contacts.pictureOf(this.requireOpen(), jid)
  downloadPicture = (url: string, path: string, maxBytes: number) => contacts.downloadPicture(this.requireOpen(), this.ctx.clock, url, path, maxBytes)
  // Chats (chat-modify.ts).
  modifyChat = (chatJid: string, change: ChatModification, last: { ref: WaMessageRef; atMs: number } | null) => modifyChatOn(this.requireOpen(), chatJid, change, last)
  // Labels (labels.ts).
  isBusinessAccount = async () => labels.isBusinessAccount(this.requireOpen(), await this.ctx.baileys())
  writeLabel = (label: { labelId: string; name: string; color: number }) => labels.writeLabel(this.requireOpen(), label)
  labelChat = (chatJid: string, labelId: string, labeled: boolean) => labels.labelChat(this.requireOpen(), this.ownLabelEchoes, chatJid, labelId, labeled)
  private readonly ownLabelEchoes = new labels.OwnLabelEchoes()

  /** Stops writing credentials; the gateway calls it when the phone's rows are wiped under a live session. */
  detachAuth(): void {
    this.auth?.detach()
  }

  // -------------------------------------------------------------------------------------------

  private async start(pairing: { method: "qr" } | { method: "code"; phoneNumber: string } | undefined, forced: WaVersion | null): Promise<void> {
    const { ctx, phoneId } = this
    const baileys = await ctx.baileys()
    if (this.closedByUs) return
    if (!await storedCredsArePaired(ctx.store, phoneId)) {
      // A pairing started earlier and never finished leaves credentials WhatsApp refuses (401): start clean.
      if (await ctx.store.hasCreds(phoneId)) await ctx.store.write(async (q) => await q.wipeAuth(phoneId))
      this.pairing = true
    }
    const version = forced ?? (await ctx.chooseWaVersion()).version
    if (this.closedByUs) return
    this.announced = version
    this.waVersion = formatWaVersion(version)
    this.call(() => this.events.connecting({ waVersion: this.waVersion! }))
    const fence = ctx.fenceOf?.(phoneId) ?? null
    const auth = await loadAuthState(baileys, { store: ctx.store, clock: ctx.clock, fence, onFenceRefused: () => ctx.onFenceRefused?.(phoneId) }, phoneId)
    this.auth = auth
    const logger = bridgeLogger(ctx.logger, { phoneId })
    const resend = createResendStore(ctx, phoneId, baileys)
    this.resend = resend
    this.secrets = createMessageSecrets(ctx, phoneId, (bytes) => baileys.proto.Message.decode(bytes))
    this.pollVotes = createPollVotes(ctx, phoneId, (bytes) => baileys.proto.Message.PollVoteMessage.decode(bytes).selectedOptions)
    // What the phone's history settings ask WhatsApp for (docs/admin.md § "History on pairing"):
    // `full` is WhatsApp's full sync, asked for at linking (DeviceProps.requireFullSync); `none` takes no history chunk.
    const history = (await ctx.store.findHistorySettings(phoneId))?.historySync ?? "recent"
    const sock = baileys.makeWASocket({
      auth: { creds: auth.state.creds, keys: baileys.makeCacheableSignalKeyStore(auth.state.keys, logger, ctx.signalKeyCache.forPhone(phoneId)) },
      waWebSocketUrl: ctx.wsUrl,
      version: [...version],
      connectTimeoutMs: ctx.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      logger,
      // Online would silence the phone's notifications and send read receipts as "active".
      markOnlineOnConnect: false,
      syncFullHistory: history === "full",
      // Baileys reads only what needs no download (the inline bootstrap, which ends its initial-sync
      // wait and starts its app-state sync); history-ingest.ts reads every chunk itself.
      shouldSyncHistoryMessage: history === "none" ? () => false : baileysReadsHistory,
      // Ignored stanzas are acked and dropped before decryption: status updates, broadcasts, newsletters.
      shouldIgnoreJid: (jid) => isIgnoredJid(jid),
      // A recipient's retry receipt that Baileys' own five-minute cache cannot answer.
      getMessage: (key) => resend.getMessage(key),
      msgRetryCounterCache: ctx.retryCache(phoneId),
    })
    this.sock = sock
    this.historyIngest = history === "none" ? null : createHistoryIngest({
      baileys,
      mediaHost: async () => {
        const host = (await sock.refreshMediaConn(false)).hosts[0]?.hostname
        if (!host) throw new Error("WhatsApp named no media host")
        return host
      },
      lidMapping: sock.signalRepository.lidMapping,
      nowMs: () => ctx.clock.nowMs(),
      report: async (chunk) => await this.events.historyChunk?.(chunk),
      warn: (message, fields) => this.log.warn(message, fields),
    })
    this.watchdog = this.offlineWatchdogFor(sock)
    // A code is asked for only on an unpaired socket; a paired one logs in whatever was asked.
    this.codeFor = this.pairing && pairing?.method === "code" ? pairing.phoneNumber.replace(/\D/g, "") : null

    // Baileys listens to `unexpected-response` (to re-emit it), which tells `ws` that someone
    // handles a refused upgrade: without this the socket would wait for the connect timeout.
    sock.ws.on("unexpected-response", (_request: unknown, response: { statusCode?: number }) => {
      if (this.sock === sock) void sock.end(upgradeRefusedError(response.statusCode ?? 0))
    })
    const rotation = createAdvRotation(auth.state.creds, () => this.codeFor !== null)
    this.rotation = rotation
    sock.ws.on("CB:notification,type:companion_reg_refresh", (node: NotificationNode) => {
      const refreshed = rotation.refresh(node)
      if (refreshed === null || this.sock !== sock) return
      this.log.info("WhatsApp retired the pairing secret; the QR is shown again with a new one")
      sock.sendNode(refreshed.ack).catch((err) => this.log.error("acknowledging the pairing secret's rotation failed", { err }))
      auth.saveCreds().catch((err) => this.log.error("saving WhatsApp credentials failed", { err }))
      if (refreshed.qr !== null) this.call(() => this.events.qr(refreshed.qr!))
    })
    this.listenForPasskeyGateAndExpiry(sock)
    this.listenForGroupNotices(sock)
    this.appStateEvents = appStateHandler(sock, baileys, () => ctx.clock.nowMs(), {
      chatChanged: (change) => this.sock === sock && this.call(() => this.events.chatChangedOnPhone?.(change)),
      addressBook: (contacts) => this.sock === sock && this.call(() => this.events.addressBook?.(contacts)),
      chatLabelled: (change) => this.sock === sock && this.call(() => this.events.chatLabelledOnPhone?.(change)),
      labelEdited: (label) => this.sock === sock && this.call(() => this.events.labelEditedOnPhone?.(label)),
      isOwnChatLabel: (chatJid, labelId, labeled) => this.ownLabelEchoes.isEcho(chatJid, labelId, labeled),
      failed: (what, err) => this.log.error(`${what} failed`, { err }),
    })
    const lidRefresher = new LidRefresher(socketLidDirectory(baileys, sock), this.log)
    sock.ws.on("CB:ack,class:message", (node: AckNode) => {
      const signal = mapServerAck(node, ctx.clock.nowMs())
      if (signal) this.report(signal)
      // A stale LID mapping (refresh_lid): looked up again before the next send (lid-refresh.ts).
      void lidRefresher.onAck(node)
    })
    // Deliveries off the wire: Baileys' buffer folds a delivery and a read into the read alone.
    sock.ws.on("CB:receipt", (node: ReceiptNode) => {
      if (this.sock !== sock) return
      for (const signal of mapRawDeliveryReceipt(node, sock.user ?? {}, ctx.clock.nowMs())) this.report(signal)
    })
    // process() sees each batch as Baileys consolidated it (receipts folded into upserts, etc.).
    sock.ev.process(async (events: Partial<BaileysEventMap>) => {
      if (this.sock !== sock) return
      try {
        this.onEvents(sock, auth, events)
      } catch (err) {
        // Baileys does not await this handler: a throw would become an unhandled rejection.
        this.log.error("handling WhatsApp events failed", { err })
      }
    })
  }

  /** Releases Baileys' held events when WhatsApp's offline marker does not come in time (offline-watchdog.ts). */
  private offlineWatchdogFor(sock: WASocket): OfflineWatchdog {
    const waitMs = this.ctx.offlineMarkerWaitMs ?? DEFAULT_OFFLINE_MARKER_WAIT_MS
    return createOfflineWatchdog({
      clock: this.ctx.clock,
      waitMs,
      release: () => (this.sock === sock ? sock.ev.flush() : false),
      onReleased: ({ atMs, held }) => {
        if (this.sock === sock) this.call(() => this.events.offlineMarkerMissed?.({ atMs, waitMs, held }))
      },
    })
  }

  /** WhatsApp's group notifications, read off the socket once each (group-notices.ts), told in arrival order. */
  private listenForGroupNotices(sock: WASocket): void {
    const contextOf = () => ({
      self: sock.user ?? { id: "" },
      pnForLid: (lid: string) => sock.signalRepository.lidMapping.getPNForLID(lid),
      nowMs: this.ctx.clock.nowMs(),
    })
    const subjectOf = async (groupId: string) => (await sock.groupMetadata(groupId)).subject ?? ""
    const once = this.ctx.groupNoticeOnce(this.phoneId)
    const tell = (read: () => Promise<GroupNotice | null>) => {
      this.groupChain = this.groupChain
        .then(read)
        .then((notice) => {
          if (notice !== null && this.sock === sock) this.call(() => this.events.groupChanged?.(notice))
        })
        .catch((err) => this.log.error("mapping a group notification failed", { err }))
    }
    sock.ws.on("CB:notification,type:w:gp2", (node: NotificationNode) => {
      if (this.sock !== sock || !once(node)) return
      tell(async () => {
        const mapped = await mapGroupNotification(node, contextOf())
        return mapped === null ? null : await withJoinedSubject(mapped, subjectOf)
      })
    })
    sock.ws.on("CB:notification,type:picture", (node: NotificationNode) => {
      if (this.sock !== sock || !once(node)) return
      tell(() => mapPictureNotification(node, contextOf()))
    })
  }

  /** Stanzas Baileys 7.0.0-rc14 does not read: the passkey gate on linking, and the client expiry. */
  private listenForPasskeyGateAndExpiry(sock: WASocket): void {
    // WhatsApp asks for a passkey instead of linking (passkey-gate.ts): no QR or code gets past
    // it, so the attempt ends now and for good rather than when Baileys' QR refs run out.
    sock.ws.on(`CB:notification,type:${PASSKEY_REQUEST_TYPE}`, (node: NotificationNode) => {
      const request = passkeyRequestOf(node)
      if (request === null || this.sock !== sock || !this.pairing) return
      this.finish("passkey_required", true, { ...this.failureBase(), code: "passkey_required", cause: passkeyRequestCause(request) })
      void sock.end(undefined)
    })
    sock.ws.on("CB:ib", (node: IbNode) => {
      if (this.sock === sock) this.onClientExpiration(node)
    })
  }

  private onEvents(sock: WASocket, auth: SqliteAuthState, events: Partial<BaileysEventMap>): void {
    const update = events["connection.update"]
    if (update) this.onConnectionUpdate(sock, update)
    if (events["creds.update"]) auth.saveCreds().catch((err) => this.log.error("saving WhatsApp credentials failed", { err }))
    this.appStateEvents?.(events)
    const nowMs = this.ctx.clock.nowMs()
    const messageUpdates = events["messages.update"]
    if (messageUpdates) for (const signal of mapMessageUpdates(messageUpdates, nowMs)) this.report(signal)
    const receipts = events["message-receipt.update"]
    if (receipts) for (const signal of mapReceiptUpdates(receipts, nowMs)) this.report(signal)
    if (events.call) this.onCalls(sock, events.call)
    const blocks = events["blocklist.update"]
    if (blocks) {
      void Promise.all(blocks.blocklist.map((jid) => contacts.contactOf(sock, jid))).then((changed) =>
        this.call(() => this.events.blocklistChanged?.({ contacts: changed, blocked: blocks.type === "add" })),
      )
    }
    const upsert = events["messages.upsert"]
    if (upsert) {
      for (const signal of mapOwnUpserts(upsert, nowMs)) this.report(signal)
      if (this.sock === sock) this.historyIngest?.onUpsert(upsert)
      const pnForLid = (lid: string) => sock.signalRepository.lidMapping.getPNForLID(lid)
      const secrets = this.secrets
      const pollVotes = this.pollVotes
      // Secrets are stored before anything is mapped: an edit or a vote in the same batch may need one.
      let opened: typeof upsert = upsert
      let votes: PollVoteSeen[] = []
      this.inboundChain = this.inboundChain
        .then(async () => {
          if (!secrets || !pollVotes) return
          await secrets.rememberUpsert(upsert, sock.user ?? {})
          opened = (await secrets.openEdits(upsert)) as typeof upsert
          votes = [...(await pollVotes.release(pollIdsOf(upsert))), ...(await pollVotes.take(upsert, pnForLid))]
        })
        .then(() => mapInboundUpsert(opened, { pnForLid, nowMs }))
        .then((messages) => {
          for (const m of messages) this.call(() => this.events.inbound(m))
          return mapEchoUpsert(opened, { pnForLid, nowMs })
        })
        .then((echoes) => {
          for (const e of echoes) this.call(() => this.events.echo?.(e))
          return mapInboundActions(opened, { pnForLid, nowMs })
        })
        .then((actions) => {
          for (const a of actions) this.call(() => this.events.inboundAction?.(a))
          for (const v of votes) this.call(() => this.events.pollVote?.(v))
        })
        .catch((err) => this.log.error("mapping inbound messages failed", { err }))
    }
  }

  /** Incoming calls, in order with the inbound messages (calls.ts). */
  private onCalls(sock: WASocket, calls: NonNullable<Partial<BaileysEventMap>["call"]>): void {
    const pnForLid = (lid: string) => sock.signalRepository.lidMapping.getPNForLID(lid)
    const nowMs = this.ctx.clock.nowMs()
    this.inboundChain = this.inboundChain
      .then(() => mapCalls(calls, { pnForLid, nowMs }))
      .then((signals) => {
        for (const signal of signals) this.call(() => this.events.call?.(signal))
      })
      .catch((err) => this.log.error("mapping incoming calls failed", { err }))
  }

  private onConnectionUpdate(sock: WASocket, update: BaileysEventMap["connection.update"]): void {
    if (update.qr) {
      // Every QR carries the live ADV secret, which a rotation may have replaced (adv-rotation.ts).
      if (this.codeFor === null) this.call(() => this.events.qr(this.rotation?.qr(update.qr!) ?? update.qr!))
      else if (!this.codeRequested) {
        // The first QR says the handshake is done: a code is asked for instead of showing it.
        this.codeRequested = true
        sock.requestPairingCode(this.codeFor).then(
          (code) => this.call(() => this.events.pairingCode(code)),
          (err) => {
            this.log.error("requesting a pairing code failed", { err })
            void sock.end(err instanceof Error ? err : new Error(String(err)))
          },
        )
      }
    }
    if (update.isNewLogin) this.call(() => this.events.scanned())
    // Baileys says `receivedPendingNotifications` when `<ib><offline>` came (offline-watchdog.ts).
    if (update.receivedPendingNotifications === true) this.watchdog?.markerArrived()
    if (update.connection === "open") {
      this.watchdog?.opened()
      this.open = true
      this.pairing = false
      const user = decodeJid(sock.user?.id)?.user
      this.call(() => this.events.connected({ phoneNumber: `+${user ?? ""}` }))
    }
    if (update.connection === "close") {
      this.watchdog?.stop()
      const error = update.lastDisconnect?.error
      const statusCode = closeStatusCode(error)
      const decision = decideDisconnect({ statusCode, message: closeMessage(error), pairing: this.pairing, closedByUs: this.closedByUs })
      const failure = failureOf(error, { reason: decision.reason, host: this.failureBase().host, waVersion: this.waVersion })
      if (decision.reason === "outdated_version" && !this.versionRetried && this.announced) {
        this.versionRetried = true
        void this.retryWithNewerVersion(this.announced, () => this.finish(decision.reason, decision.terminal, failure))
        return
      }
      this.finish(decision.reason, decision.terminal, failure)
    }
  }

  /**
   * WhatsApp refused the announced version as outdated (405 at the handshake: it retires WhatsApp
   * Web builds within weeks, WhiskeySockets/Baileys#2731 and #2376): looks the version up again
   * and connects once more with a newer one; with none (an explicit setting, a failed lookup, the
   * same version again) the refusal is final at once (`giveUp`).
   */
  private async retryWithNewerVersion(rejected: WaVersion, giveUp: () => void): Promise<void> {
    const newer = await this.ctx.chooseWaVersion.refresh(rejected).catch(() => null)
    if (this.closedByUs || this.ended) return
    if (!newer) return giveUp()
    this.log.warn(`WhatsApp refused WhatsApp Web ${formatWaVersion(rejected)} as outdated (405); connecting once more with ${formatWaVersion(newer.version)}, looked up again`, {
      rejectedWaVersion: formatWaVersion(rejected),
      waVersion: formatWaVersion(newer.version),
    })
    this.sock = null
    this.open = false
    this.run(newer.version)
  }

  /** `<ib><client_expiration t=…>`: logged once per phone and date, and reported for the phone's state. */
  private onClientExpiration(node: IbNode): void {
    const expiresAtMs = clientExpirationOf(node)
    if (expiresAtMs === null || this.waVersion === null) return
    if (this.ctx.expirationNotices.firstTime(this.phoneId, expiresAtMs)) {
      this.log.warn(
        `WhatsApp says this client version (WhatsApp Web ${this.waVersion}) expires on ${isoDay(expiresAtMs)}; upgrade wagate or set WAGATE_WA_VERSION to a current version before then`,
        { waVersion: this.waVersion, expiresAt: toIso(expiresAtMs) },
      )
    }
    const waVersion = this.waVersion
    this.call(() => this.events.clientExpiration?.({ expiresAtMs, waVersion }))
  }

  private requireOpen(): WASocket {
    if (!this.sock || !this.open || this.ended) throw new SessionNotConnectedError(this.phoneId)
    return this.sock
  }

  private async onWhatsApp(sock: WASocket, phoneNumbers: string[]): Promise<string[]> {
    const results = await sock.onWhatsApp(...phoneNumbers)
    // undefined means no answer at all: saying "not on WhatsApp" would fail sends for a day.
    if (!results) throw new Error("WhatsApp did not answer the number check")
    return results.filter((r) => r.exists).map((r) => r.jid)
  }

  private report(signal: OutboundSignal): void {
    const { events } = this
    switch (signal.kind) {
      case "acked":
        return this.call(() => events.partAcked(signal.waMessageId, signal.atMs))
      case "rejected":
        // An error ack arrives both raw and as a status-0 update.
        if (this.rejected.has(signal.waMessageId)) return
        if (this.rejected.size >= REJECTED_IDS_REMEMBERED) this.rejected.delete(this.rejected.values().next().value!)
        this.rejected.add(signal.waMessageId)
        return this.call(() => events.partRejected(signal.waMessageId, this.privacyTokens.refine(signal.rejection, signal.waMessageId), signal.atMs))
      case "receipt":
        return this.call(() => events.receipt(signal.waMessageId, signal.receipt, signal.atMs))
    }
  }

  /** Runs a domain callback; a throwing one must not break Baileys' event processing. */
  private call(fn: () => void): void {
    try {
      fn()
    } catch (err) {
      this.log.error("a WhatsApp session callback failed", { err })
    }
  }

  /** Reports the end of the session once, whatever ended it. */
  private finish(reason: DisconnectReason, final: boolean, failure: ConnectionFailure | null = null): void {
    if (this.ended) return
    this.ended = true
    this.open = false
    this.ctx.ended(this.phoneId, this)
    this.call(() => this.events.disconnected({ reason, final, failure }))
  }

  /** What every failure of this session names: the host it tried and the version it announced. */
  private failureBase(): Pick<ConnectionFailure, "host" | "httpStatus" | "waVersion"> {
    return { host: new URL(this.ctx.wsUrl).host, httpStatus: null, waVersion: this.waVersion }
  }

  private async endSocket(): Promise<void> {
    const sock = this.sock
    if (!sock || this.ended) return
    await this.withCloseTimeout(sock.end(undefined)).catch((err) => this.log.warn("closing the WhatsApp socket failed", { err }))
  }

  /** Waits for `promise`, but no longer than CLOSE_TIMEOUT_MS: a dead network must not hang a shutdown. */
  private withCloseTimeout<T>(promise: Promise<T>): Promise<T | void> {
    return new Promise<T | void>((resolve, reject) => {
      const timer = this.ctx.clock.setTimer(CLOSE_TIMEOUT_MS, () => resolve())
      promise.then(
        (value) => {
          timer.cancel()
          resolve(value)
        },
        (err) => {
          timer.cancel()
          reject(err)
        },
      )
    })
  }
}
