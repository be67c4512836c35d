import {
  addTransactionCapability,
  Curve,
  DEFAULT_CONNECTION_CONFIG,
  encodeBigEndian,
  encodeWAMessage,
  generateSignalPubKey,
  initAuthCreds,
  proto,
  unpadRandomMax16,
  type BinaryNode,
  type KeyPair,
  type SignalKeyStoreWithTransaction,
  type SignalRepositoryWithLIDStore,
} from "@whiskeysockets/baileys"
import type { DeviceBundle } from "./accounts"
import { MemoryKeyStore } from "./memory-keys"
import { silentLogger } from "./silent-logger"
import type { EditIdentity } from "./message-secret"

/** How a contact's 1:1 stanzas and receipts name it: by phone number or by LID. */
export type Addressing = "pn" | "lid"

/** Which receipts a contact sends on its own when a message reaches it. */
export type AutoReceipts = "none" | "delivered" | "read"

export interface ContactOptions {
  /** E.164, with or without the leading `+`. */
  phoneNumber: string
  /** The contact's LID, digits only. A unique one is made up when absent. */
  lid?: string
  /** Push name shown on its messages (`notify`). */
  name?: string
  /** How its 1:1 messages and receipts are addressed. Default `pn`. */
  addressing?: Addressing
  /**
   * The contact hides its number: its LID-addressed stanzas carry no `sender_pn` or
   * `participant_pn`, so a client learns only its LID. Default false.
   */
  hidesNumber?: boolean
  /**
   * The contact has no number WhatsApp will tell (a username-only or number-hidden account,
   * WhiskeySockets/Baileys#2742): LID addressing only, no `sender_pn`/`participant_pn`, no
   * `phone_number` in group metadata, and a usync by number does not find it. `phoneNumber` then
   * only names it inside the simulator. Default false.
   */
  noNumber?: boolean
  /**
   * Its WhatsApp username: its stanzas carry it (`peer_recipient_username` on 1:1 messages,
   * `participant_username` in groups, the attributes Baileys 7.0.0-rc14 reads, WhiskeySockets/Baileys#2480).
   * Writable, so a test can change it. Default none.
   */
  username?: string
  /** False: usync answers `contact type="out"` and no devices, so `onWhatsApp` leaves it out. Default true. */
  onWhatsApp?: boolean
  /** The contact's privacy setting. Off: it never sends `read` for 1:1 messages (groups still do). Default true. */
  readReceipts?: boolean
  /** The server acks messages to this contact as soon as they arrive. False: the test calls `sim.ack`. Default true. */
  autoAck?: boolean
  /** Receipts the contact sends on its own once it has decrypted a message. Default `read`. */
  autoReceipts?: AutoReceipts
  /**
   * When it cannot decrypt a 1:1 message, the contact asks for it again with a retry receipt, as
   * real clients do (see retry-receipts.ts); the second request carries a fresh key bundle. Default true.
   */
  retryReceipts?: boolean
  /**
   * Ids of the contact's other devices beside its phone (device 0), e.g. `[1]` for a WhatsApp
   * Web companion. Each has its own Signal identity: senders encrypt a copy per device, and
   * either device may send the receipts (`sim.deliver(id, contact, { device: 1 })`). Default none.
   */
  otherDevices?: number[]
  /**
   * The contact's app sends its edits encrypted with the edited message's secret
   * (`secretEncryptedMessage`, message-secret.ts), deriving the key with its LID or its number;
   * its messages then carry a `messageSecret`. Default null: plain edits, no secret.
   */
  encryptedEdits?: EditIdentity | null
}

/** One-time pre-keys each contact publishes; every session a peer opens uses one. */
const CONTACT_PRE_KEYS = 20

/**
 * Someone the paired phone talks to, with a real Signal identity. It runs Baileys' own
 * libsignal-based repository over an in-memory store, so what it decrypts proves that Baileys
 * encrypted for it correctly, and what it encrypts Baileys must really decrypt.
 */
export class SimContact {
  readonly phoneNumber: string
  /** Its current LID; `sim.changeLid` gives it a new one (a new account behind the same number). */
  lid: string
  /** LIDs it had before, still routed to it, so a send to one can be answered (lid-change.ts). */
  readonly formerLids: string[] = []
  readonly noNumber: boolean
  username: string | undefined
  readonly name: string
  readonly addressing: Addressing
  /** Writable: a test can have a contact hide its number after WhatsApp named it once. */
  hidesNumber: boolean
  /** Writable: a test can switch encrypted edits on or off (ContactOptions.encryptedEdits). */
  encryptedEdits: EditIdentity | null
  readonly onWhatsApp: boolean
  readonly readReceipts: boolean
  readonly autoAck: boolean
  readonly autoReceipts: AutoReceipts
  readonly retryReceipts: boolean
  /** Its phone (0) and its other devices, in that order. */
  readonly deviceIds: number[]
  /** The other devices' own identities, by device id (same number and LID, keys of their own). */
  private readonly otherDeviceIdentities = new Map<number, SimContact>()

  private readonly creds = initAuthCreds()
  private readonly keys: SignalKeyStoreWithTransaction
  private readonly repository: SignalRepositoryWithLIDStore
  private readonly unusedPreKeyIds: number[] = []
  /** `group|senderJid|deviceJid` for every device that already holds this contact's sender key. */
  private readonly senderKeyHolders = new Set<string>()

  /** The one-time pre-key pairs, written to the store the first time a bundle is handed out. */
  private readonly preKeyPairs: Record<string, KeyPair> = {}
  private preKeysStored?: Promise<void>

  constructor(options: ContactOptions & { lid: string }) {
    this.phoneNumber = options.phoneNumber.replace(/^\+/, "")
    this.lid = options.lid
    this.name = options.name ?? `Contact ${this.phoneNumber.slice(-4)}`
    this.addressing = options.addressing ?? (options.noNumber ? "lid" : "pn")
    this.noNumber = options.noNumber ?? false
    if (this.noNumber && options.addressing === "pn") throw new Error("a contact with no number is addressed by LID")
    this.hidesNumber = this.noNumber || (options.hidesNumber ?? false)
    this.username = options.username
    this.encryptedEdits = options.encryptedEdits ?? null
    this.onWhatsApp = options.onWhatsApp ?? true
    this.readReceipts = options.readReceipts ?? true
    this.autoAck = options.autoAck ?? true
    this.autoReceipts = options.autoReceipts ?? "read"
    this.retryReceipts = options.retryReceipts ?? true
    this.deviceIds = [0, ...(options.otherDevices ?? []).filter((id) => id !== 0)]
    for (const deviceId of this.deviceIds.slice(1)) {
      this.otherDeviceIdentities.set(deviceId, new SimContact({ ...options, otherDevices: [] }))
    }
    this.keys = addTransactionCapability(new MemoryKeyStore(), silentLogger, { maxCommitRetries: 1, delayBetweenTriesMs: 1 })
    this.repository = DEFAULT_CONNECTION_CONFIG.makeSignalRepository({ creds: this.creds, keys: this.keys }, silentLogger)
    for (let keyId = 1; keyId <= CONTACT_PRE_KEYS; keyId++) {
      this.preKeyPairs[keyId] = Curve.generateKeyPair()
      this.unusedPreKeyIds.push(keyId)
    }
  }

  /** The registration id its device puts in retry receipts and pre-key bundles. */
  get registrationId(): number {
    return this.creds.registrationId
  }

  get pnJid(): string {
    return `${this.phoneNumber}@s.whatsapp.net`
  }

  get lidJid(): string {
    return `${this.lid}@lid`
  }

  /**
   * The identity of one of its devices: this object for the phone (device 0), else the
   * device's own. Accepts a device id or a device jid (`user:1@s.whatsapp.net`). Throws for an
   * unknown device.
   */
  device(deviceOrJid: number | string): SimContact {
    const deviceId = typeof deviceOrJid === "number" ? deviceOrJid : Number(/:(\d+)@/.exec(deviceOrJid)?.[1] ?? 0)
    if (deviceId === 0) return this
    const identity = this.otherDeviceIdentities.get(deviceId)
    if (!identity) throw new Error(`${this.phoneNumber} has no device ${deviceId}`)
    return identity
  }

  /** The jid of one of its devices; device 0 (the phone) has no device part. */
  deviceJid(deviceId: number, addressing: Addressing = this.addressing): string {
    const [user, server] = this.jid(addressing).split("@")
    return deviceId === 0 ? `${user}@${server}` : `${user}:${deviceId}@${server}`
  }

  /** This contact's jid in the given addressing mode (its own mode by default). */
  jid(addressing: Addressing = this.addressing): string {
    return addressing === "pn" ? this.pnJid : this.lidJid
  }

  /** Whether a jid's user part names this contact, by phone number or LID. */
  owns(user: string): boolean {
    return (!this.noNumber && user === this.phoneNumber) || user === this.lid || this.formerLids.includes(user)
  }

  /** Gives it a new LID, its devices too; the old one is remembered (see `formerLids`). */
  moveToLid(lid: string): void {
    for (const identity of [this, ...this.otherDeviceIdentities.values()]) {
      identity.formerLids.push(identity.lid)
      identity.lid = lid
    }
  }

  /**
   * The `<user>` node answering a pre-key fetch for `requestedJid`, handing out (and so using up)
   * one one-time pre-key while any are left.
   */
  async bundleNode(requestedJid: string): Promise<BinaryNode> {
    const content: BinaryNode[] = [
      { tag: "registration", attrs: {}, content: encodeBigEndian(this.creds.registrationId) },
      { tag: "type", attrs: {}, content: Buffer.from([5]) },
      { tag: "identity", attrs: {}, content: Buffer.from(this.creds.signedIdentityKey.public) },
      {
        tag: "skey",
        attrs: {},
        content: [
          { tag: "id", attrs: {}, content: encodeBigEndian(this.creds.signedPreKey.keyId, 3) },
          { tag: "value", attrs: {}, content: Buffer.from(this.creds.signedPreKey.keyPair.public) },
          { tag: "signature", attrs: {}, content: Buffer.from(this.creds.signedPreKey.signature) },
        ],
      },
    ]
    await (this.preKeysStored ??= Promise.resolve(this.keys.set({ "pre-key": this.preKeyPairs })))
    const keyId = this.unusedPreKeyIds.shift()
    if (keyId !== undefined) {
      const { [keyId]: keyPair } = await this.keys.get("pre-key", [String(keyId)])
      if (keyPair) {
        content.push({
          tag: "key",
          attrs: {},
          content: [
            { tag: "id", attrs: {}, content: encodeBigEndian(keyId, 3) },
            { tag: "value", attrs: {}, content: Buffer.from(keyPair.public) },
          ],
        })
      }
    }
    return { tag: "user", attrs: { jid: requestedJid }, content }
  }

  /** Decrypts a `pkmsg`/`msg` that `senderDeviceJid` addressed to this contact. */
  async decrypt(senderDeviceJid: string, type: "pkmsg" | "msg", ciphertext: Uint8Array): Promise<proto.Message> {
    const plaintext = await this.repository.decryptMessage({ jid: senderDeviceJid, type, ciphertext })
    return proto.Message.decode(unpadRandomMax16(plaintext))
  }

  /** Stores the sender key a group member distributed, so its later `skmsg` can be decrypted. */
  async acceptSenderKey(distribution: proto.Message.ISenderKeyDistributionMessage, authorJid: string): Promise<void> {
    await this.repository.processSenderKeyDistributionMessage({ item: distribution, authorJid })
  }

  /** Decrypts a group `skmsg` written by `authorJid`, whose sender key this contact holds. */
  async decryptGroup(groupJid: string, authorJid: string, ciphertext: Uint8Array): Promise<proto.Message> {
    const plaintext = await this.repository.decryptGroupMessage({ group: groupJid, authorJid, msg: ciphertext })
    return proto.Message.decode(unpadRandomMax16(plaintext))
  }

  /**
   * Encrypts a 1:1 message for one device. The first time it opens the session from `bundle`
   * (the device's uploaded keys), so the result is a `pkmsg`; libsignal keeps sending `pkmsg`
   * until the other side has answered on that session.
   */
  async encryptFor(deviceJid: string, bundle: DeviceBundle | undefined, message: proto.IMessage): Promise<{ type: "pkmsg" | "msg"; ciphertext: Uint8Array }> {
    const session = await this.repository.validateSession(deviceJid)
    if (!session.exists) {
      if (!bundle) throw new Error(`${this.phoneNumber} has no session with ${deviceJid} and the device uploaded no keys`)
      await this.repository.injectE2ESession({
        jid: deviceJid,
        session: {
          registrationId: bundle.registrationId,
          identityKey: generateSignalPubKey(bundle.identityKey),
          signedPreKey: {
            keyId: bundle.signedPreKey.keyId,
            publicKey: generateSignalPubKey(bundle.signedPreKey.publicKey),
            signature: bundle.signedPreKey.signature,
          },
          ...(bundle.preKey ? { preKey: { keyId: bundle.preKey.keyId, publicKey: generateSignalPubKey(bundle.preKey.publicKey) } } : {}),
        },
      })
    }
    return this.repository.encryptMessage({ jid: deviceJid, data: encodeWAMessage(message) })
  }

  /** Drops its Signal session with a device, as a reinstalled or broken client would; the next `msg` from it fails to decrypt. */
  async forgetSessionWith(deviceJid: string): Promise<void> {
    await this.keys.set({ session: { [this.repository.jidToSignalProtocolAddress(deviceJid)]: null } })
  }

  /** Whether this contact has an open session with a device (no bundle needed to write to it). */
  async hasSessionWith(deviceJid: string): Promise<boolean> {
    return (await this.repository.validateSession(deviceJid)).exists
  }

  /**
   * Encrypts a group message under this contact's sender key for `groupJid`, as `senderJid`.
   * `distribution` is the sender key distribution message to give devices that lack the key.
   */
  async encryptForGroup(groupJid: string, senderJid: string, message: proto.IMessage): Promise<{ ciphertext: Uint8Array; distribution: Uint8Array }> {
    const { ciphertext, senderKeyDistributionMessage } = await this.repository.encryptGroupMessage({
      group: groupJid,
      meId: senderJid,
      data: encodeWAMessage(message),
    })
    return { ciphertext, distribution: senderKeyDistributionMessage }
  }

  /** Records that a device got this contact's sender key; true when it had not before. */
  markSenderKeyDelivered(groupJid: string, senderJid: string, deviceJid: string): boolean {
    const key = `${groupJid}|${senderJid}|${deviceJid}`
    if (this.senderKeyHolders.has(key)) return false
    this.senderKeyHolders.add(key)
    return true
  }
}
