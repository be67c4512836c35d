import type { BinaryNode, KeyPair, proto } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import { NoiseResponder } from "./noise-responder"
import { withDeadline } from "./wait"

/** The part of Bun's `ServerWebSocket` a connection uses. */
export interface WireSocket {
  sendBinary(bytes: Uint8Array): unknown
  close(code?: number, reason?: string): void
  terminate(): void
}

/** A companion's `companion_hello` from a pairing-code request, waiting for the phone's confirmation. */
export interface CompanionHello {
  /** The phone number the companion asked to pair with, digits only. */
  phoneNumber: string
  /** `salt(32) ‖ iv(16) ‖ AES-CTR(companion ephemeral public key)` under a key derived from the code. */
  wrappedCompanionEphemeral: Buffer
  /** The reference the server hands back; both sides quote it in later stages. */
  ref: Buffer
}

export interface ConnectionEvents {
  onClientPayload(connection: SimConnection, payload: proto.ClientPayload): void | Promise<void>
  onNode(connection: SimConnection, node: BinaryNode): void | Promise<void>
}

/** How long a connection waits for the client to close after a stream error before closing itself. */
const STREAM_END_GRACE_MS = 1_000

/**
 * One websocket from a client: the noise session, what the client turned out to be (a new device
 * showing QR codes, or a logged-in companion) and the IQs the server sent that await an answer.
 */
export class SimConnection {
  /** Set once a known companion logged in. */
  login?: { account: SimAccount; deviceId: number }
  /** QR refs handed to a registering client in `pair-device`; a scan must quote one of them. */
  qrRefs: string[] = []
  /** Set while a pairing-code request waits for the phone. */
  companionHello?: CompanionHello
  /** Set once the server retired this registering companion's ADV secret (adv-refresh.ts). */
  advSecretRefreshed = false
  /** ADV secrets (base64) the server retired for this companion: a QR carrying one is refused. */
  readonly retiredAdvSecrets = new Set<string>()
  /** Ids of the notifications the client acknowledged. */
  readonly ackedNotifications = new Set<string>()
  /** What a registering companion asked for in its `DeviceProps` (history sync, history-sync.ts). */
  deviceProps?: proto.DeviceProps
  private closed = false
  private readonly closedListeners: (() => void)[] = []
  private readonly pendingReplies = new Map<string, (reply: BinaryNode) => void>()
  private readonly iqWaiters = new Map<string, (iq: BinaryNode) => void>()
  private nextRequestNumber = 1
  private readonly noise: NoiseResponder

  constructor(
    readonly id: number,
    private readonly socket: WireSocket,
    options: { staticKeyPair: KeyPair; certificateChain: Uint8Array; events: ConnectionEvents },
  ) {
    this.noise = new NoiseResponder({
      staticKeyPair: options.staticKeyPair,
      certificateChain: options.certificateChain,
      write: (bytes) => {
        if (!this.closed) this.socket.sendBinary(bytes)
      },
      events: {
        onClientPayload: (payload) => options.events.onClientPayload(this, payload),
        onNode: (node) => {
          if (node.tag === "iq" && (node.attrs.type === "result" || node.attrs.type === "error")) {
            const resolve = this.pendingReplies.get(node.attrs.id ?? "")
            if (resolve) {
              this.pendingReplies.delete(node.attrs.id ?? "")
              resolve(node)
              return
            }
          }
          return options.events.onNode(this, node)
        },
      },
    })
  }

  get isOpen(): boolean {
    return !this.closed
  }

  /** Feeds bytes from the websocket; a protocol violation closes the connection. */
  async receive(bytes: Uint8Array): Promise<void> {
    try {
      await this.noise.receive(bytes)
    } catch (error) {
      this.close()
      throw error
    }
  }

  /** Sends a stanza; silently dropped once the connection is closed, as on a real dead socket. */
  send(node: BinaryNode): void {
    if (!this.closed) this.noise.sendNode(node)
  }

  /** Sends a server-initiated IQ (an `id` is assigned) and resolves with the client's answer. */
  request(node: BinaryNode, timeoutMs: number): Promise<BinaryNode> {
    const id = `sim-${this.id}-${this.nextRequestNumber++}`
    const reply = new Promise<BinaryNode>((resolve) => this.pendingReplies.set(id, resolve))
    this.send({ ...node, attrs: { ...node.attrs, id } })
    return withDeadline(reply, { timeoutMs, what: `the client's answer to <iq id="${id}">` }).finally(() => this.pendingReplies.delete(id))
  }

  /**
   * Resolves with the next client IQ of one selector (`xmlns/type/child`), for flows where the
   * server waits on the client, such as `md/set/link_code_companion_reg` finishing a pairing code.
   */
  nextIq(selector: string, timeoutMs: number): Promise<BinaryNode> {
    const iq = new Promise<BinaryNode>((resolve) => this.iqWaiters.set(selector, resolve))
    return withDeadline(iq, { timeoutMs, what: `a ${selector} IQ from the client` }).finally(() => this.iqWaiters.delete(selector))
  }

  /** Hands a client IQ to whoever waits for its selector; true if someone did. */
  offerIq(selector: string, iq: BinaryNode): boolean {
    const resolve = this.iqWaiters.get(selector)
    if (!resolve) return false
    this.iqWaiters.delete(selector)
    resolve(iq)
    return true
  }

  /**
   * Sends a `stream:error` (or another final stanza) and lets the client close, as real clients do
   * when they read it; closes from this side if the client has not after a short grace period.
   */
  endStream(node: BinaryNode): void {
    this.send(node)
    const timer = setTimeout(() => this.close(), STREAM_END_GRACE_MS)
    this.onClosed(() => clearTimeout(timer))
  }

  /** Closes the websocket normally. */
  close(): void {
    if (this.closed) return
    this.socket.close()
    this.markClosed()
  }

  /** Drops the TCP connection without a close handshake, like a network failure. */
  terminate(): void {
    if (this.closed) return
    this.socket.terminate()
    this.markClosed()
  }

  /** Called by the server when the websocket closed, from either side. */
  markClosed(): void {
    if (this.closed) return
    this.closed = true
    for (const listener of this.closedListeners.splice(0)) listener()
  }

  /** Runs `listener` once the connection is closed (at once if it already is). */
  onClosed(listener: () => void): void {
    if (this.closed) listener()
    else this.closedListeners.push(listener)
  }
}
