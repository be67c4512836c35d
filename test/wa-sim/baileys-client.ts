import makeWASocket, {
  BufferJSON,
  initAuthCreds,
  type AuthenticationCreds,
  type AuthenticationState,
  type BaileysEventMap,
  type BinaryNode,
  type ConnectionState,
  type MessageUpsertType,
  type MessageUserReceiptUpdate,
  type UserFacingSocketConfig,
  type WAMessage,
  type WAMessageUpdate,
  type WASocket,
} from "@whiskeysockets/baileys"
import { MemoryKeyStore } from "./memory-keys"
import type { WaSim } from "./sim"
import { silentLogger } from "./silent-logger"
import { ChangeSignal } from "./wait"

/**
 * Test-side helpers that drive real, unmodified Baileys against the simulator: an in-memory auth
 * state that really serializes, and a socket wrapper that records every event a test asserts on
 * and waits for conditions instead of sleeping.
 */

/** Default wait for one client-side condition. Everything is on loopback, so this only bounds failures. */
const DEFAULT_WAIT_MS = 5_000

/** An auth state held as serialized JSON, so "reconnect with saved creds" really reloads them. */
export class MemoryAuth {
  readonly keys: MemoryKeyStore
  readonly state: AuthenticationState
  private savedCreds?: string

  constructor(saved?: { creds: string; keys: MemoryKeyStore }) {
    this.keys = saved?.keys ?? new MemoryKeyStore()
    this.savedCreds = saved?.creds
    const creds: AuthenticationCreds = saved ? JSON.parse(saved.creds, BufferJSON.reviver) : initAuthCreds()
    this.state = { creds, keys: this.keys }
  }

  /** Persists the credentials as they are now (hook this to `creds.update`). */
  saveCreds(): void {
    this.savedCreds = JSON.stringify(this.state.creds, BufferJSON.replacer)
  }

  /** A fresh auth state revived from what was saved, as after a restart. */
  reload(): MemoryAuth {
    if (!this.savedCreds) throw new Error("no credentials were saved")
    return new MemoryAuth({ creds: this.savedCreds, keys: this.keys })
  }
}

/** The status code of a Baileys disconnect error (a Boom), if any. */
function statusCodeOf(error: unknown): number | undefined {
  return (error as { output?: { statusCode?: number } } | undefined)?.output?.statusCode
}

/** One Baileys socket and everything it emitted. */
export class TestClient {
  readonly sock: WASocket
  readonly qrs: string[] = []
  readonly connectionUpdates: Partial<ConnectionState>[] = []
  /** `messages.update` entries in order. */
  readonly messageUpdates: WAMessageUpdate[] = []
  /** `message-receipt.update` entries in order (group receipts). */
  readonly receiptUpdates: MessageUserReceiptUpdate[] = []
  readonly upserts: { type: MessageUpsertType; message: WAMessage }[] = []
  /** `messaging-history.set` events in order (history sync, history-sync.ts). */
  readonly historySets: BaileysEventMap["messaging-history.set"][] = []
  /** Raw server acks of our messages (`CB:ack,class:message`): Baileys emits no event for a success ack. */
  readonly serverAcks: BinaryNode[] = []
  private readonly changed = new ChangeSignal()

  constructor(config: UserFacingSocketConfig, auth: MemoryAuth) {
    this.sock = makeWASocket(config)
    const record = <T>(list: T[], items: T[]): void => {
      list.push(...items)
      this.changed.notify()
    }
    this.sock.ev.on("creds.update", () => auth.saveCreds())
    this.sock.ev.on("connection.update", (update) => {
      if (update.qr) this.qrs.push(update.qr)
      record(this.connectionUpdates, [update])
    })
    this.sock.ev.on("messages.update", (updates) => record(this.messageUpdates, updates))
    this.sock.ev.on("message-receipt.update", (updates) => record(this.receiptUpdates, updates))
    this.sock.ev.on("messages.upsert", ({ type, messages }) => record(this.upserts, messages.map((message) => ({ type, message }))))
    this.sock.ev.on("messaging-history.set", (set) => record(this.historySets, [set]))
    this.sock.ws.on("CB:ack,class:message", (node: BinaryNode) => record(this.serverAcks, [node]))
  }

  /** Resolves with the first non-undefined value of `probe`, re-checked on every event. */
  waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = DEFAULT_WAIT_MS): Promise<T> {
    return this.changed.waitFor(probe, { timeoutMs, what })
  }

  get isOpen(): boolean {
    return this.connectionUpdates.some((update) => update.connection === "open") && this.closeCode === undefined && !this.closed
  }

  /** True once the socket reported `close`. */
  get closed(): boolean {
    return this.connectionUpdates.some((update) => update.connection === "close")
  }

  /** The status code the socket closed with; undefined while open or when closed by `end()`. */
  get closeCode(): number | undefined {
    const close = this.connectionUpdates.find((update) => update.connection === "close")
    return statusCodeOf(close?.lastDisconnect?.error)
  }

  waitForOpen(timeoutMs = DEFAULT_WAIT_MS): Promise<true> {
    return this.waitFor(() => {
      if (this.closed) throw new Error(`the socket closed (code ${this.closeCode}) instead of opening`)
      return this.connectionUpdates.some((update) => update.connection === "open") ? true : undefined
    }, "connection open", timeoutMs)
  }

  /** Resolves with the close status code (undefined for a local `end()` without error). */
  async waitForClose(timeoutMs = DEFAULT_WAIT_MS): Promise<number | undefined> {
    await this.waitFor(() => (this.closed ? true : undefined), "connection close", timeoutMs)
    return this.closeCode
  }

  waitForQr(timeoutMs = DEFAULT_WAIT_MS): Promise<string> {
    return this.waitFor(() => this.qrs[0], "a QR code", timeoutMs)
  }

  /**
   * Waits until Baileys emitted its own `append` upsert for a message it sent. Baileys holds that
   * upsert in its event buffer for about 100 ms after `sendMessage` resolves, and a receipt that
   * arrives meanwhile is folded into it (as `status`) instead of becoming a `messages.update`; a
   * test that wants to see each receipt as an update must push receipts only after this.
   */
  waitForOwnUpsert(id: string, timeoutMs = DEFAULT_WAIT_MS): Promise<WAMessage> {
    return this.waitFor(
      () => this.upserts.find((entry) => entry.message.key.fromMe && entry.message.key.id === id)?.message,
      `our own upsert of ${id}`,
      timeoutMs,
    )
  }

  /**
   * The highest status Baileys reported for a message by any route: `messages.update`, or the
   * `status` of its own upsert when a receipt was folded into it (see `waitForOwnUpsert`).
   */
  highestStatusOf(id: string): number | undefined {
    const fromUpserts = this.upserts.filter((entry) => entry.message.key.id === id).map((entry) => entry.message.status ?? undefined)
    const all = [...this.statusesOf(id), ...fromUpserts].filter((status): status is number => typeof status === "number")
    return all.length > 0 ? Math.max(...all) : undefined
  }

  /** Statuses `messages.update` reported for one message id, in order. */
  statusesOf(id: string): number[] {
    return this.messageUpdates.filter((entry) => entry.key.id === id && typeof entry.update.status === "number").map((entry) => entry.update.status!)
  }

  /** Closes the socket from the client side (if still open) and waits until it reports closed. */
  async end(): Promise<void> {
    if (this.closed) return
    this.sock.end(undefined)
    await this.waitForClose()
  }
}

/**
 * Socket options every simulator test uses; `overrides` win.
 *
 * `shouldSyncHistoryMessage: () => false`: on the first login after pairing Baileys otherwise waits
 * up to 20 s for the phone's history-sync push (which the simulator sends only when a test asks,
 * history-sync.ts) with its event buffer on, so events come out in consolidated batches.
 */
export function simSocketConfig(sim: WaSim, auth: MemoryAuth, overrides: Partial<UserFacingSocketConfig> = {}): UserFacingSocketConfig {
  return {
    auth: auth.state,
    waWebSocketUrl: sim.wsUrl,
    logger: silentLogger,
    markOnlineOnConnect: false,
    syncFullHistory: false,
    shouldSyncHistoryMessage: () => false,
    connectTimeoutMs: 5_000,
    defaultQueryTimeoutMs: 5_000,
    ...overrides,
  }
}

/**
 * Pairs a fresh auth state with `phoneNumber` by QR the way an app does: socket, QR, the phone
 * scans it, close 515, a new socket with the saved credentials, `open`.
 */
export async function pairWithQr(
  sim: WaSim,
  phoneNumber: string,
  overrides: Partial<UserFacingSocketConfig> = {},
): Promise<{ auth: MemoryAuth; first: TestClient; client: TestClient }> {
  const auth = new MemoryAuth()
  const first = new TestClient(simSocketConfig(sim, auth, overrides), auth)
  await sim.primary(phoneNumber).scanQr(await first.waitForQr())
  const restartCode = await first.waitForClose()
  if (restartCode !== 515) throw new Error(`expected close 515 after pairing, got ${restartCode}`)
  const client = new TestClient(simSocketConfig(sim, auth, overrides), auth)
  await client.waitForOpen()
  return { auth, first, client }
}
