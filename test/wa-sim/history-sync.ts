import { randomBytes } from "node:crypto"
import { deflateSync } from "node:zlib"
import { proto } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import type { DeviceTarget } from "./inbound"
import { newMessageId } from "./inbound"
import { encryptMedia } from "./media-crypto"
import type { MediaHost } from "./media-host"
import { unixSeconds } from "./nodes"
import { sendFromPhone } from "./phone-device"

/*
 * History sync: after a companion links, the phone uploads the account's past chats in chunks and
 * tells the companion about each one with a peer message of its own (README "History sync").
 *
 * Sources: Baileys 7.0.0-rc14 lib/Utils/history.js (`downloadHistory`: the notification's
 * `directPath` and `mediaKey`, media type `md-msg-hist`, then zlib inflate and
 * `proto.HistorySync.decode`; `processHistoryMessage`: conversations, `pushnames`,
 * `phoneNumberToLidMappings`, `pnJid`/`lidJid` per chat), lib/Utils/process-message.js (the
 * `HISTORY_SYNC_NOTIFICATION` protocol message, only from our own devices, and the
 * `messaging-history.set` event), lib/Socket/chats.js (`shouldSyncHistoryMessage`, the
 * `messaging-history.status` completion on INITIAL_BOOTSTRAP and on RECENT at progress 100),
 * lib/Socket/messages-recv.js (a `category="peer"` message is answered with a `peer_msg` receipt
 * and a history notification also with `hist_sync`), lib/Utils/validate-connection.js
 * (`DeviceProps.historySyncConfig` and `requireFullSync` in the registration payload);
 * tulir/whatsmeow message.go (`handleProtocolMessage`, `DownloadHistorySync`: the same blob,
 * zlib, `HistorySync`).
 *
 * Inferred, not from a source: the phone waits for the companion's `hist_sync` receipt of one
 * chunk before it announces the next (a real phone paces by its own means); the stanza carries
 * `category="peer"` and our own number as `from`.
 */

/** What a test can make go wrong with one chunk's blob. */
export type HistoryFault =
  /** The notification carries another media key than the blob was sealed with: the download fails to decrypt. */
  | "wrong_media_key"
  /** The media host answers 410 for the blob, as WhatsApp's CDN does once it expired. */
  | "gone"

export interface HistorySendOptions {
  /** The chunks in the order the phone sends them; a generator keeps only one in memory at a time. */
  chunks: Iterable<proto.IHistorySync> | AsyncIterable<proto.IHistorySync>
  /** The companion device to sync (default: the account's newest linked device). */
  device?: number
  /** WhatsApp breaks the sync off after this many chunks: the rest never comes. */
  stopAfter?: number
  /** Faults by chunk index (0-based, in sending order). */
  faults?: Readonly<Record<number, HistoryFault>>
  /** Wait for the companion's `hist_sync` receipt of each chunk before the next. Default true (when the device is connected). */
  pace?: boolean
  /** How long to wait for each receipt. Default 10 s. */
  receiptTimeoutMs?: number
  /**
   * The INITIAL_BOOTSTRAP chunk rides inside the notification (`initialHistBootstrapInlinePayload`,
   * deflated, no blob), as the phone may do for a companion whose `historySyncConfig` says
   * `inlineInitialPayloadInE2EeMsg` (Baileys 7.0.0-rc14 advertises it and reads the payload in
   * `downloadAndProcessHistorySyncNotification`; whatsmeow's `DownloadHistorySync` too). Default false.
   */
  inlineBootstrap?: boolean
}

/** One chunk as the phone announced it. */
export interface SentHistoryChunk {
  /** The id of the notification message. */
  id: string
  syncType: proto.HistorySync.HistorySyncType
  chunkOrder: number
  progress: number
  /** Where the blob is on the media host; undefined for an inline bootstrap. */
  directPath?: string
  conversations: number
  messages: number
  pushnames: number
  fault?: HistoryFault
}

export interface HistorySendResult {
  chunks: SentHistoryChunk[]
  /** False when `stopAfter` cut the sync short. */
  complete: boolean
}

/** What history sync needs from the simulator. */
export interface HistoryDeps {
  account(phoneNumber: string): SimAccount
  /** Where a stanza for one companion device goes, and whether that device is connected now. */
  target(account: SimAccount, deviceId: number): { target: DeviceTarget; live: boolean }
  media: MediaHost
  nowMs(): number
  waitFor<T>(probe: () => T | undefined, what: string, timeoutMs: number): Promise<T>
  /** Whether a companion sent `<receipt type="hist_sync" id>` for a notification. */
  acknowledged(id: string): boolean
}

/** The `DeviceProps` a registering companion sent (what history it asks for), if it sent any. */
export function devicePropsOf(payload: proto.IClientPayload): proto.DeviceProps | undefined {
  const bytes = payload.devicePairingData?.deviceProps
  return bytes && bytes.length > 0 ? proto.DeviceProps.decode(bytes) : undefined
}

/** The notification fields every chunk carries, inline or uploaded. */
function chunkFields(sync: proto.IHistorySync): proto.Message.IHistorySyncNotification {
  let oldest: number | undefined
  for (const conversation of sync.conversations ?? []) {
    for (const item of conversation.messages ?? []) {
      const at = Number(item.message?.messageTimestamp ?? 0)
      if (at > 0 && (oldest === undefined || at < oldest)) oldest = at
    }
  }
  return {
    syncType: sync.syncType ?? proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP,
    chunkOrder: sync.chunkOrder ?? 0,
    progress: sync.progress ?? 0,
    ...(oldest === undefined ? {} : { oldestMsgInChunkTimestampSec: oldest }),
  }
}

/** Deflates, encrypts and uploads one chunk; returns the notification that names it. */
export async function uploadHistoryChunk(sync: proto.IHistorySync, media: MediaHost, fault: HistoryFault | undefined): Promise<proto.Message.IHistorySyncNotification> {
  const encrypted = await encryptMedia(deflateSync(proto.HistorySync.encode(sync).finish()), "md-msg-hist")
  const stored = media.put(encrypted.file)
  if (fault === "gone") media.expire(stored.directPath, 410)
  return {
    fileSha256: encrypted.fileSha256,
    fileLength: encrypted.fileLength,
    mediaKey: fault === "wrong_media_key" ? randomBytes(32) : encrypted.mediaKey,
    fileEncSha256: encrypted.fileEncSha256,
    directPath: stored.directPath,
    ...chunkFields(sync),
  }
}

/** A bootstrap chunk carried in the notification itself, deflated. */
function inlineChunk(sync: proto.IHistorySync): proto.Message.IHistorySyncNotification {
  return { initialHistBootstrapInlinePayload: deflateSync(proto.HistorySync.encode(sync).finish()), ...chunkFields(sync) }
}

/** The account's newest linked device (the one pairing just added). */
function newestDevice(account: SimAccount): number {
  const ids = [...account.devices.keys()]
  if (ids.length === 0) throw new Error(`${account.phoneNumber} has no linked device to sync history to`)
  return Math.max(...ids)
}

/**
 * The phone's history sync: `send` announces chunks one by one; `onLink` makes the phone sync a
 * device by itself once it linked and uploaded its keys; `deviceProps` is what each device asked for.
 */
export class SimHistory {
  private readonly plans = new WeakMap<SimAccount, (props: proto.DeviceProps | undefined) => HistorySendOptions>()
  private readonly synced = new WeakMap<SimAccount, Set<number>>()
  /** Automatic syncs started by `onLink`, for a test to await. */
  readonly automatic: Promise<HistorySendResult>[] = []

  constructor(private readonly deps: HistoryDeps) {}

  /** The `DeviceProps` a device of an account sent at registration (`historySyncConfig`, `requireFullSync`). */
  deviceProps(phoneNumber: string, deviceId?: number): proto.DeviceProps | undefined {
    const account = this.deps.account(phoneNumber)
    return account.devices.get(deviceId ?? newestDevice(account))?.deviceProps
  }

  /** From now on, each newly linked device of the account gets the history `plan` returns for what it asked. */
  onLink(phoneNumber: string, plan: (props: proto.DeviceProps | undefined) => HistorySendOptions): void {
    this.plans.set(this.deps.account(phoneNumber), plan)
  }

  /** Whether `onLink` gave the account a plan. */
  hasPlan(phoneNumber: string): boolean {
    return this.plans.has(this.deps.account(phoneNumber))
  }

  /** Called at every login: a device's first login after linking starts its automatic sync. */
  onLogin(account: SimAccount, deviceId: number): void {
    const plan = this.plans.get(account)
    const synced = this.synced.get(account) ?? new Set<number>()
    this.synced.set(account, synced)
    if (!plan || synced.has(deviceId)) return
    synced.add(deviceId)
    const options = plan(account.devices.get(deviceId)?.deviceProps)
    const started = this.deps
      .waitFor(() => (account.devices.get(deviceId)?.signedPreKey ? true : undefined), `device ${deviceId} uploading its keys`, options.receiptTimeoutMs ?? 10_000)
      .then(() => this.send(account.phoneNumber, { ...options, device: deviceId }))
    started.catch(() => undefined)
    this.automatic.push(started)
  }

  /** The phone announces `options.chunks` to one companion, one notification per chunk. */
  async send(phoneNumber: string, options: HistorySendOptions): Promise<HistorySendResult> {
    const account = this.deps.account(phoneNumber)
    const deviceId = options.device ?? newestDevice(account)
    const sent: SentHistoryChunk[] = []
    for await (const sync of options.chunks) {
      if (options.stopAfter !== undefined && sent.length >= options.stopAfter) return { chunks: sent, complete: false }
      sent.push(await this.sendChunk(account, deviceId, sync, options, options.faults?.[sent.length]))
    }
    return { chunks: sent, complete: true }
  }

  private async sendChunk(account: SimAccount, deviceId: number, sync: proto.IHistorySync, options: HistorySendOptions, fault: HistoryFault | undefined): Promise<SentHistoryChunk> {
    const inline = options.inlineBootstrap && (sync.syncType ?? proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP) === proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP
    const notification = inline ? inlineChunk(sync) : await uploadHistoryChunk(sync, this.deps.media, fault)
    const id = newMessageId()
    const { target, live } = this.deps.target(account, deviceId)
    await sendFromPhone({
      account,
      targets: [target],
      message: { protocolMessage: { type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION, historySyncNotification: notification } },
      attrs: { from: account.pnJid, id, t: unixSeconds(this.deps.nowMs()), type: "text", category: "peer" },
    })
    if (live && (options.pace ?? true)) {
      await this.deps.waitFor(() => (this.deps.acknowledged(id) ? true : undefined), `the hist_sync receipt of ${id}`, options.receiptTimeoutMs ?? 10_000)
    }
    const conversations = sync.conversations ?? []
    return {
      id,
      syncType: notification.syncType as number,
      chunkOrder: notification.chunkOrder ?? 0,
      progress: notification.progress ?? 0,
      ...(notification.directPath ? { directPath: notification.directPath } : {}),
      conversations: conversations.length,
      messages: conversations.reduce((sum, conversation) => sum + (conversation.messages?.length ?? 0), 0),
      pushnames: sync.pushnames?.length ?? 0,
      ...(fault ? { fault } : {}),
    }
  }
}
