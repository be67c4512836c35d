import { randomBytes } from "node:crypto"
import { verifySignature } from "libsignal/src/curve.js"
import {
  Curve,
  generateSignalPubKey,
  hmacSign,
  proto,
  S_WHATSAPP_NET,
  WA_ADV_ACCOUNT_SIG_PREFIX,
  WA_ADV_DEVICE_SIG_PREFIX,
  getBinaryNodeChild,
  type BinaryNode,
} from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import type { SimConnection } from "./connection"
import { childBytes, contentBytes, requiredChildBytes, unixSeconds } from "./nodes"
import { pairSuccessAppNodes } from "./business"
import { advRefreshNode, RetiredQrSecretError } from "./adv-refresh"
import { PasskeyRequiredError, passkeyRequestNode } from "./passkey-gate"
import { deriveAdvSecret, openKeyBundle, unwrapEphemeralKey, wrapEphemeralKey } from "./pairing-code"

/** A companion device the phone has just linked. */
export interface LinkedDevice {
  deviceId: number
  /** `15550001111:1@s.whatsapp.net` */
  jid: string
  /** `1000…:1@lid` */
  lid: string
}

/** What a primary phone needs from the simulator. */
export interface PrimaryDeps {
  /** Every open connection, to find the one showing a QR ref or waiting for a pairing code. */
  connections(): Iterable<SimConnection>
  /** Waits until `probe` finds something, re-checked after each client stanza. */
  waitFor<T>(probe: () => T | undefined, what: string): Promise<T>
  nowMs(): number
  /** How long to wait for each answer of the companion during pairing. */
  replyTimeoutMs: number
  /** Whether the server retires each registering companion's ADV secret once, mid-pairing (adv-refresh.ts). */
  advSecretRotation: boolean
}

/** How often `scanShownQr` looks at the QR again after a refused scan. */
const RESCAN_GAP_MS = 50

/**
 * The user's phone, the primary device of an account. It links companions (Baileys) the two ways
 * the WhatsApp app does: scanning the QR code the companion shows, or taking the 8-character code
 * the companion displays after "link with phone number".
 */
export class SimPrimary {
  constructor(
    readonly account: SimAccount,
    private readonly deps: PrimaryDeps,
  ) {}

  /**
   * Scans a QR string from Baileys' `connection.update` (`…#ref,noiseKey,identityKey,advSecret,platform`)
   * and links that companion. Resolves once the companion signed its device identity and was told
   * to restart (stream error 515).
   */
  async scanQr(qr: string): Promise<LinkedDevice> {
    const [ref, , identityKeyB64, advSecretB64] = (qr.split("#")[1] ?? "").split(",")
    if (!ref || !identityKeyB64 || !advSecretB64) throw new Error(`not a WhatsApp pairing QR: ${qr}`)
    const connection = [...this.deps.connections()].find((candidate) => candidate.isOpen && candidate.qrRefs.includes(ref))
    if (!connection) throw new Error(`no open connection is showing QR ref ${ref}`)
    if (connection.retiredAdvSecrets.has(advSecretB64)) throw new RetiredQrSecretError(ref)
    if (this.deps.advSecretRotation && !connection.advSecretRefreshed) {
      // The rotation lands between showing the QR and scanning it: the secret on screen is retired.
      connection.advSecretRefreshed = true
      connection.retiredAdvSecrets.add(advSecretB64)
      connection.send(advRefreshNode(this.deps.nowMs()))
      throw new RetiredQrSecretError(ref)
    }
    if (this.account.passkeyToLink) this.gateOnPasskey(connection)
    return this.link(connection, Buffer.from(identityKeyB64, "base64"), Buffer.from(advSecretB64, "base64"))
  }

  /**
   * What a person does with a QR on a screen: scans it, and when the phone reports that its secret
   * was retired, waits for the screen to show another QR and scans that. `readQr` reads what is
   * shown now (undefined while nothing is). Resolves with the link and the QR codes that were refused.
   */
  async scanShownQr(readQr: () => Promise<string | undefined>, timeoutMs = 30_000): Promise<LinkedDevice & { refusedQrs: string[] }> {
    const deadline = performance.now() + timeoutMs
    const refusedQrs: string[] = []
    for (;;) {
      const qr = await readQr()
      if (qr !== undefined && !refusedQrs.includes(qr)) {
        try {
          return { ...(await this.scanQr(qr)), refusedQrs }
        } catch (error) {
          if (!(error instanceof RetiredQrSecretError)) throw error
          refusedQrs.push(qr)
        }
      }
      if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for a QR whose secret the phone accepts (refused: ${refusedQrs.length})`)
      await Bun.sleep(RESCAN_GAP_MS)
    }
  }

  /**
   * Enters the pairing code a companion displays (after Baileys' `requestPairingCode(phoneNumber)`
   * for this account's number) and links that companion. Rejects when the code is wrong, which
   * shows up as the companion's key bundle failing to decrypt, or when no companion asks in time.
   */
  async confirmPairingCode(code: string): Promise<LinkedDevice> {
    // `requestPairingCode` resolves when Baileys wrote its request, which may not have arrived yet.
    const connection = await this.deps.waitFor(
      () => [...this.deps.connections()].find((candidate) => candidate.isOpen && candidate.companionHello?.phoneNumber === this.account.phoneNumber),
      `a companion asking for a pairing code for ${this.account.phoneNumber}`,
    )
    const hello = connection.companionHello!
    const companionEphemeral = await unwrapEphemeralKey(hello.wrappedCompanionEphemeral, code)
    const ephemeral = Curve.generateKeyPair()
    const finishing = connection.nextIq("md/set/link_code_companion_reg", this.deps.replyTimeoutMs)
    connection.send({
      tag: "notification",
      attrs: { from: S_WHATSAPP_NET, type: "link_code_companion_reg", id: randomBytes(8).toString("hex"), t: unixSeconds(this.deps.nowMs()) },
      content: [
        {
          tag: "link_code_companion_reg",
          attrs: { stage: "primary_hello" },
          content: [
            { tag: "link_code_pairing_ref", attrs: {}, content: hello.ref },
            { tag: "primary_identity_pub", attrs: {}, content: Buffer.from(this.account.identity.public) },
            { tag: "link_code_pairing_wrapped_primary_ephemeral_pub", attrs: {}, content: await wrapEphemeralKey(ephemeral.public, code) },
          ],
        },
      ],
    })
    const finish = getBinaryNodeChild(await finishing, "link_code_companion_reg")
    if (finish?.attrs.stage !== "companion_finish") throw new Error(`expected companion_finish, got ${finish?.attrs.stage}`)
    const ephemeralShared = Curve.sharedKey(ephemeral.private, companionEphemeral)
    let bundle: ReturnType<typeof openKeyBundle>
    try {
      bundle = openKeyBundle(requiredChildBytes(finish, "link_code_pairing_wrapped_key_bundle"), ephemeralShared)
    } catch {
      connection.companionHello = undefined
      throw new Error("the pairing code is wrong: the companion's key bundle does not decrypt")
    }
    const companionIdentityKey = requiredChildBytes(finish, "companion_identity_public")
    if (!bundle.companionIdentityKey.equals(companionIdentityKey) || !bundle.primaryIdentityKey.equals(Buffer.from(this.account.identity.public))) {
      throw new Error("the companion's key bundle names other identity keys")
    }
    const identityShared = Curve.sharedKey(this.account.identity.private, companionIdentityKey)
    connection.companionHello = undefined
    if (this.deps.advSecretRotation && !connection.advSecretRefreshed) await this.refreshAfterFinish(connection)
    if (this.account.passkeyToLink) this.gateOnPasskey(connection)
    return this.link(connection, companionIdentityKey, deriveAdvSecret(ephemeralShared, identityShared, bundle.random))
  }

  /**
   * The rotation at its most harmful point of the code flow: after `companion_finish`, before
   * `pair-success`. The secret stays the one both sides derived; a client that replaced it now
   * could not check `pair-success`. Waits for the ack so the companion has seen it first.
   */
  private async refreshAfterFinish(connection: SimConnection): Promise<void> {
    connection.advSecretRefreshed = true
    const refresh = advRefreshNode(this.deps.nowMs())
    connection.send(refresh)
    await this.deps.waitFor(() => (connection.ackedNotifications.has(refresh.attrs.id!) ? true : undefined), "the companion's ack of companion_reg_refresh")
  }

  /**
   * The passkey gate (passkey-gate.ts): the server asks the companion for a passkey assertion
   * instead of sending `pair-success`, and the phone waits on "Continue on WhatsApp Web". The
   * connection stays open with its QR refs, as it does for a client that ignores the request.
   */
  private gateOnPasskey(connection: SimConnection): never {
    connection.send(passkeyRequestNode(this.deps.nowMs()))
    throw new PasskeyRequiredError(this.account.phoneNumber)
  }

  /**
   * Sends `pair-success` with an ADV identity signed by the account key and HMAC'd with the
   * companion's ADV secret, checks the companion's `pair-device-sign` strictly, records the device
   * and sends stream error 515, after which the companion reconnects and logs in.
   */
  private async link(connection: SimConnection, companionIdentityKey: Buffer, advSecret: Buffer): Promise<LinkedDevice> {
    const account = this.account
    const deviceId = account.reserveDeviceId()
    const details = proto.ADVDeviceIdentity.encode({
      rawId: randomBytes(4).readUInt32BE(0),
      timestamp: Math.floor(this.deps.nowMs() / 1000),
      keyIndex: deviceId,
    }).finish()
    const accountSignature = Curve.sign(account.identity.private, Buffer.concat([WA_ADV_ACCOUNT_SIG_PREFIX, details, companionIdentityKey]))
    const signedIdentity = proto.ADVSignedDeviceIdentity.encode({ details, accountSignatureKey: account.identity.public, accountSignature }).finish()
    const identityWithHmac = proto.ADVSignedDeviceIdentityHMAC.encode({ details: signedIdentity, hmac: hmacSign(signedIdentity, advSecret) }).finish()
    const linked: LinkedDevice = { deviceId, jid: account.deviceJid(deviceId, "pn"), lid: account.deviceJid(deviceId, "lid") }
    const pairSuccess: BinaryNode = {
      tag: "iq",
      attrs: { from: S_WHATSAPP_NET, type: "set", xmlns: "md", t: unixSeconds(this.deps.nowMs()) },
      content: [
        {
          tag: "pair-success",
          attrs: {},
          content: [
            { tag: "device-identity", attrs: {}, content: identityWithHmac },
            ...pairSuccessAppNodes(account),
            { tag: "device", attrs: { jid: linked.jid, lid: linked.lid } },
          ],
        },
      ],
    }
    const reply = await connection.request(pairSuccess, this.deps.replyTimeoutMs)
    if (reply.attrs.type !== "result") throw new Error(`the companion refused pair-success: ${JSON.stringify(reply.attrs)}`)
    const signedByCompanion = contentBytes(getBinaryNodeChild(getBinaryNodeChild(reply, "pair-device-sign"), "device-identity"))
    if (!signedByCompanion) throw new Error("the companion's answer has no pair-device-sign/device-identity")
    const companionSigned = proto.ADVSignedDeviceIdentity.decode(signedByCompanion)
    const deviceMessage = Buffer.concat([WA_ADV_DEVICE_SIG_PREFIX, details, companionIdentityKey, account.identity.public])
    if (!companionSigned.deviceSignature || !verifySignature(generateSignalPubKey(companionIdentityKey), deviceMessage, companionSigned.deviceSignature)) {
      throw new Error("the companion's device signature does not verify")
    }
    account.addDevice(deviceId, companionIdentityKey).deviceProps = connection.deviceProps
    connection.qrRefs = []
    connection.endStream({ tag: "stream:error", attrs: { code: "515" } })
    return linked
  }
}

/** Reads `companion_hello` of a pairing-code request; the server answers it with a fresh ref. */
export function readCompanionHello(iq: BinaryNode): { phoneNumber: string; wrappedCompanionEphemeral: Buffer } | undefined {
  const hello = getBinaryNodeChild(iq, "link_code_companion_reg")
  if (hello?.attrs.stage !== "companion_hello") return undefined
  const wrapped = childBytes(hello, "link_code_pairing_wrapped_companion_ephemeral_pub")
  const phoneNumber = (hello.attrs.jid ?? "").split("@")[0]?.split(":")[0] ?? ""
  return wrapped && phoneNumber ? { phoneNumber, wrappedCompanionEphemeral: wrapped } : undefined
}
