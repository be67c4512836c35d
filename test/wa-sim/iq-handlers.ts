import { randomBytes } from "node:crypto"
import { APP_STATE_IQS, type SimAppState } from "./app-state-sync"
import { encodeBigEndian, getBinaryNodeChild, jidDecode, S_WHATSAPP_NET, type BinaryNode } from "@whiskeysockets/baileys"
import type { DeviceBundle, SimAccount } from "./accounts"
import type { SimConnection } from "./connection"
import type { SimContact } from "./contact"
import { GROUP_ADMIN_IQS } from "./group-admin-iqs"
import type { SimGroup } from "./groups"
import type { MediaHost } from "./media-host"
import { childrenByTag, iqError, iqResult, readUintBE, requiredChildBytes, userOf } from "./nodes"
import { readCompanionHello } from "./primary"
import { PROFILE_IQ_HANDLERS as OWN_PROFILE_IQ_HANDLERS } from "./profile"
import { answerUsync } from "./usync"
import { PROFILE_IQ_HANDLERS, type SimProfiles } from "./profiles"

/** What IQ handlers may read and change. */
export interface IqWorld {
  contactFor(user: string): SimContact | undefined
  groupFor(id: string): SimGroup | undefined
  groups(): Iterable<SimGroup>
  media: MediaHost
  nowMs(): number
  /** True while the test has pings go unanswered. */
  pingsStalled(): boolean
  /** False while the server never sends the end-of-offline-queue marker (receiving-stalls.ts). */
  offlineMarker(): boolean
  /** Block lists and profiles (profiles.ts). */
  profiles: SimProfiles
  /** App-state collections and the key share (app-state-sync.ts). */
  appState: SimAppState
}

/** One IQ from the client and the ways to answer it. */
export interface IqRequest {
  iq: BinaryNode
  connection: SimConnection
  world: IqWorld
  reply(content?: BinaryNode[]): void
  fail(code: number, text: string): void
}

export type IqHandler = (request: IqRequest) => void | Promise<void>

/** The logged-in account and device of a request, or an IQ error when the connection has not logged in. */
function loggedIn(request: IqRequest): { account: SimAccount; deviceId: number } | undefined {
  if (!request.connection.login) request.fail(401, "not-authorized")
  return request.connection.login
}

/** The `<user>` node of a pre-key fetch answer for one companion device of an account. */
function deviceBundleNode(jid: string, bundle: DeviceBundle): BinaryNode {
  return {
    tag: "user",
    attrs: { jid },
    content: [
      { tag: "registration", attrs: {}, content: encodeBigEndian(bundle.registrationId) },
      { tag: "type", attrs: {}, content: Buffer.from([5]) },
      { tag: "identity", attrs: {}, content: Buffer.from(bundle.identityKey) },
      {
        tag: "skey",
        attrs: {},
        content: [
          { tag: "id", attrs: {}, content: encodeBigEndian(bundle.signedPreKey.keyId, 3) },
          { tag: "value", attrs: {}, content: Buffer.from(bundle.signedPreKey.publicKey) },
          { tag: "signature", attrs: {}, content: Buffer.from(bundle.signedPreKey.signature) },
        ],
      },
      ...(bundle.preKey
        ? [
            {
              tag: "key",
              attrs: {},
              content: [
                { tag: "id", attrs: {}, content: encodeBigEndian(bundle.preKey.keyId, 3) },
                { tag: "value", attrs: {}, content: Buffer.from(bundle.preKey.publicKey) },
              ],
            },
          ]
        : []),
    ],
  }
}

/**
 * The IQs the simulator understands, keyed by `xmlns/type/first-child`. The login sequence
 * (`encrypt/get/count`, `encrypt/set/registration`, `passive/set/active`, `encrypt/get/digest`)
 * blocks Baileys' `open`, so those must always be answered; everything else a client may ask
 * and the simulator does not model gets an empty result from the caller (and is recorded).
 */
export const IQ_HANDLERS: Record<string, IqHandler> = {
  ...OWN_PROFILE_IQ_HANDLERS,
  ...PROFILE_IQ_HANDLERS,

  "encrypt/get/count": (request) => {
    const me = loggedIn(request)
    if (me) request.reply([{ tag: "count", attrs: { value: String(me.account.devices.get(me.deviceId)?.preKeys.size ?? 0) } }])
  },

  /** The companion's key bundle: registration id, identity, signed pre-key and one-time pre-keys. */
  "encrypt/set/registration": (request) => {
    const me = loggedIn(request)
    const device = me?.account.devices.get(me.deviceId)
    if (!me) return
    if (!device) return request.fail(404, "item-not-found")
    const { iq } = request
    device.registrationId = readUintBE(requiredChildBytes(iq, "registration"))
    device.identityKey = requiredChildBytes(iq, "identity")
    for (const key of childrenByTag(getBinaryNodeChild(iq, "list"), "key")) {
      device.preKeys.set(readUintBE(requiredChildBytes(key, "id")), requiredChildBytes(key, "value"))
    }
    const signed = getBinaryNodeChild(iq, "skey")
    device.signedPreKey = {
      keyId: readUintBE(requiredChildBytes(signed, "id")),
      publicKey: requiredChildBytes(signed, "value"),
      signature: requiredChildBytes(signed, "signature"),
    }
    request.reply()
  },

  "encrypt/get/digest": (request) => request.reply([{ tag: "digest", attrs: {} }]),

  /**
   * The client is ready for stanzas. The real server then delivers what queued while the device
   * was offline and closes that with `<ib><offline count=…/>`, which also flushes Baileys' event
   * buffer. Nothing is queued here, so the count is always 0; under `offlineMarker: false` it never comes.
   */
  "passive/set/active": (request) => {
    request.reply()
    if (request.world.offlineMarker()) request.connection.send({ tag: "ib", attrs: { from: S_WHATSAPP_NET }, content: [{ tag: "offline", attrs: { count: "0" } }] })
  },

  "passive/set/passive": (request) => request.reply(),

  "w:p/get/ping": (request) => {
    if (!request.world.pingsStalled()) request.reply()
  },

  "abt/get/props": (request) => request.reply([{ tag: "props", attrs: { protocol: "1", ab_key: "sim", hash: "sim-props-1" }, content: [] }]),

  "w/get/props": (request) => request.reply([{ tag: "props", attrs: { version: "1", hash: "sim-props-1" }, content: [] }]),


  "privacy/get/privacy": (request) =>
    request.reply([
      {
        tag: "privacy",
        attrs: {},
        content: ["readreceipts", "last", "online", "profile", "status", "groupadd"].map((name) => ({
          tag: "category",
          attrs: { name, value: name === "readreceipts" ? "all" : "contacts" },
        })),
      },
    ]),

  /** Trusted-contact token issuance after a 1:1 send; an empty result issues none. */
  "privacy/set/tokens": (request) => request.reply(),

  "w:m/set/media_conn": (request) => request.reply([request.world.media.mediaConnNode()]),

  "usync/get/usync": (request) => {
    const me = loggedIn(request)
    if (me) request.reply([answerUsync(getBinaryNodeChild(request.iq, "usync")!, { me: me.account, contactFor: request.world.contactFor, statusOf: (user) => request.world.profiles.statusNode(user) })])
  },

  /** Pre-key fetch: a bundle per device asked for, each taking one one-time pre-key. */
  "encrypt/get/key": async (request) => {
    const me = loggedIn(request)
    if (!me) return
    const users: BinaryNode[] = []
    for (const user of childrenByTag(getBinaryNodeChild(request.iq, "key"), "user")) {
      const jid = user.attrs.jid ?? ""
      const id = userOf(jid)
      const contact = request.world.contactFor(id)
      const ownBundle = me.account.owns(id) ? me.account.takeBundle(jidDecode(jid)?.device ?? 0) : undefined
      if (ownBundle) users.push(deviceBundleNode(jid, ownBundle))
      else if (contact?.onWhatsApp) users.push(await contact.device(jid).bundleNode(jid))
      else users.push({ tag: "user", attrs: { jid }, content: [{ tag: "error", attrs: { code: "404", text: "item-not-found" } }] })
    }
    request.reply([{ tag: "list", attrs: {}, content: users }])
  },

  "w:g2/get/participating": (request) => {
    const me = loggedIn(request)
    if (!me) return
    const groups = [...request.world.groups()].map((group) => group.node(me.account, request.world.nowMs()))
    request.reply([{ tag: "groups", attrs: {}, content: groups }])
  },

  "w:g2/get/query": (request) => {
    const me = loggedIn(request)
    if (!me) return
    const group = request.world.groupFor(userOf(request.iq.attrs.to))
    if (!group) return request.fail(404, "item-not-found")
    request.reply([group.node(me.account, request.world.nowMs())])
  },

  /**
   * A pairing-code request (`companion_hello`): remember it on the connection until the phone
   * confirms the code. The later `companion_finish` goes to the waiting phone before this runs,
   * and only needs the empty result.
   */
  "md/set/link_code_companion_reg": (request) => {
    const hello = readCompanionHello(request.iq)
    if (!hello) return request.reply()
    const ref = Buffer.from(randomBytes(16).toString("base64"))
    request.connection.companionHello = { ...hello, ref }
    request.reply([{ tag: "link_code_companion_reg", attrs: {}, content: [{ tag: "link_code_pairing_ref", attrs: {}, content: ref }] }])
  },

  /** `sock.logout()`: the companion unlinks itself. */
  "md/set/remove-companion-device": (request) => {
    const me = request.connection.login
    if (me) me.account.devices.delete(me.deviceId)
    request.reply()
  },

  // Group administration (group-admin-iqs.ts); its participating list and metadata query replace the read-only ones above.
  ...GROUP_ADMIN_IQS,
  ...APP_STATE_IQS,
}

/** Builds the `IqRequest` for one IQ, wiring `reply`/`fail` to the connection. */
export function iqRequest(iq: BinaryNode, connection: SimConnection, world: IqWorld): IqRequest {
  return {
    iq,
    connection,
    world,
    reply: (content) => connection.send(iqResult(iq, content)),
    fail: (code, text) => connection.send(iqError(iq, code, text)),
  }
}
