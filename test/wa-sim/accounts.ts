import { Curve, type KeyPair, type proto } from "@whiskeysockets/baileys"

/**
 * The public half of a device's Signal key bundle as a peer needs it to open a session: what a
 * companion uploads in `<iq xmlns="encrypt" type="set"><registration/>…</iq>` and what the server
 * hands out, one one-time pre-key at a time, in answer to `<iq xmlns="encrypt" type="get"><key/>`.
 */
export interface DeviceBundle {
  registrationId: number
  /** 32-byte identity public key, without the 0x05 type prefix. */
  identityKey: Uint8Array
  signedPreKey: { keyId: number; publicKey: Uint8Array; signature: Uint8Array }
  /** A one-time pre-key; absent once the device's uploaded ones are used up. */
  preKey?: { keyId: number; publicKey: Uint8Array }
}

/** A linked (companion) device of an account: what pairing recorded and what it uploaded at login. */
export interface CompanionDevice {
  deviceId: number
  /** The companion's identity public key, as the ADV device identity signed it at pairing. */
  identityKey: Uint8Array
  registrationId?: number
  signedPreKey?: DeviceBundle["signedPreKey"]
  /** One-time pre-keys uploaded and not yet handed out, by key id. */
  preKeys: Map<number, Uint8Array>
  /** The `DeviceProps` it registered with: the history it asked for (history-sync.ts). */
  deviceProps?: proto.DeviceProps
}

/**
 * A WhatsApp account as the server knows it. Its primary phone holds the account identity key
 * (which signs every companion's ADV identity); companion devices are numbered from 1 in pairing
 * order, device 0 being the phone itself.
 */
export class SimAccount {
  readonly identity: KeyPair = Curve.generateKeyPair()
  readonly devices = new Map<number, CompanionDevice>()
  /** The server gates every new link of this account on its passkey (passkey-gate.ts). Default off. */
  passkeyToLink = false
  /** The phone runs the WhatsApp Business app under this business name (business.ts); null: the ordinary app. Default null. */
  businessName: string | null = null
  private nextDeviceId = 1

  constructor(
    /** Digits only, e.g. `15550001111`. */
    readonly phoneNumber: string,
    /** Digits only. */
    readonly lid: string,
  ) {}

  get pnJid(): string {
    return `${this.phoneNumber}@s.whatsapp.net`
  }

  get lidJid(): string {
    return `${this.lid}@lid`
  }

  /** The PN (`15550001111:2@s.whatsapp.net`) or LID (`1000…:2@lid`) jid of one device. */
  deviceJid(deviceId: number, addressing: "pn" | "lid" = "pn"): string {
    return addressing === "pn" ? `${this.phoneNumber}:${deviceId}@s.whatsapp.net` : `${this.lid}:${deviceId}@lid`
  }

  /** Whether a jid's user part names this account, by phone number or LID. */
  owns(user: string): boolean {
    return user === this.phoneNumber || user === this.lid
  }

  /** Allocates the id the next companion will get (pairing signs it before the device exists). */
  reserveDeviceId(): number {
    return this.nextDeviceId++
  }

  /** Records a companion once pairing completed. */
  addDevice(deviceId: number, identityKey: Uint8Array): CompanionDevice {
    const device: CompanionDevice = { deviceId, identityKey, preKeys: new Map() }
    this.devices.set(deviceId, device)
    return device
  }

  /**
   * The bundle a peer gets for one device, consuming one one-time pre-key as the real server does.
   * Undefined when the device never uploaded its keys.
   */
  takeBundle(deviceId: number): DeviceBundle | undefined {
    const device = this.devices.get(deviceId)
    if (!device?.signedPreKey || device.registrationId === undefined) return undefined
    const first = device.preKeys.entries().next()
    let preKey: DeviceBundle["preKey"]
    if (!first.done) {
      const [keyId, publicKey] = first.value
      device.preKeys.delete(keyId)
      preKey = { keyId, publicKey }
    }
    return { registrationId: device.registrationId, identityKey: device.identityKey, signedPreKey: device.signedPreKey, preKey }
  }
}
