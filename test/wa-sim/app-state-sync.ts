import { createCipheriv, createHash, createHmac, randomBytes } from "node:crypto"
import { getBinaryNodeChild, getMediaKeys, proto, S_WHATSAPP_NET, type BinaryNode } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import { AccountAppState, isCollectionName, type CollectionName } from "./app-state"
import { keyShareMessage, peerMessageNode } from "./app-state-keys"
import { PhoneAppState } from "./app-state-phone"
import type { SimConnection } from "./connection"
import type { DeviceTarget } from "./inbound"
import type { IqHandler, IqRequest } from "./iq-handlers"
import type { MediaHost } from "./media-host"
import { childrenByTag, contentBytes, unixSeconds } from "./nodes"
import { newMessageId } from "./inbound"

/**
 * The server side of app-state sync (test/wa-sim/README.md, "App-state sync"): the
 * `w:sync:app:state` IQ that fetches and uploads patches, the `server_sync` notification that
 * tells the other devices a collection changed, and the key share after a companion's first login.
 *
 * Sources: Baileys 7.0.0-rc14 lib/Socket/chats.js (`resyncAppState`, `appPatch`),
 * lib/Utils/chat-utils.js (`extractSyncdPatches`, `downloadExternalBlob`), the `server_sync` case
 * of lib/Socket/messages-recv.js; whatsmeow appstate.go (`fetchAppStatePatches`, `sendAppState`:
 * a `<collection type="error">` with `<error code="409">` carries the patches the sender missed),
 * appstate/decode.go (`ParsePatchList`: `<patches>`, `<snapshot>` an `ExternalBlobReference`,
 * `has_more_patches`) and notification.go (`handleAppStateNotification`).
 */

/** Patches per answer; more are announced with `has_more_patches`, and clients ask again. */
const PATCHES_PER_ANSWER = 50

export interface AppStateDeps {
  media: MediaHost
  nowMs(): number
  /** Where a stanza for each companion device of the account goes now (live or held); throws when none. */
  targets(account: SimAccount): DeviceTarget[]
  waitFor<T>(probe: () => T | undefined, what: string): Promise<T>
  log(line: string): void
}

export class SimAppState {
  /** The phone shares its sync key with each companion after the companion's first login. Writable; default true. */
  keyShare = true
  /**
   * A client asking for a snapshot gets the collection as an external blob on the media host
   * (the only form Baileys and whatsmeow read). Baileys fetches it from `mmg.whatsapp.net`, which
   * only a test process can route to the simulator (`routeWhatsAppMediaHost`); off, the answer is
   * every patch since version 0, which both clients apply the same way. Writable; default false.
   */
  snapshots = false
  private readonly states = new WeakMap<SimAccount, AccountAppState>()
  private readonly keyShared = new WeakMap<SimAccount, Set<number>>()

  constructor(private readonly deps: AppStateDeps) {}

  of(account: SimAccount): AccountAppState {
    let state = this.states.get(account)
    if (!state) {
      state = new AccountAppState()
      this.states.set(account, state)
    }
    return state
  }

  /** The test API for changes made on the account's phone and reads of the server's state. */
  phone(account: SimAccount): PhoneAppState {
    return new PhoneAppState(this.of(account), (name, version) => this.announce(account, name, version), this.deps.nowMs)
  }

  /** After a login: once the device has uploaded its keys, the phone shares its sync key with it (once per device). */
  async onLogin(connection: SimConnection, account: SimAccount, deviceId: number): Promise<void> {
    const shared = this.keyShared.get(account) ?? new Set<number>()
    this.keyShared.set(account, shared)
    if (!this.keyShare || shared.has(deviceId)) return
    shared.add(deviceId)
    try {
      await this.deps.waitFor(() => (account.devices.get(deviceId)?.signedPreKey ? true : undefined), `device ${deviceId}'s key upload`)
      const message = keyShareMessage(this.of(account), deviceId, this.deps.nowMs())
      connection.send(await peerMessageNode(account, deviceId, message, this.deps.nowMs()))
    } catch (error) {
      // Not shared after all (the device uploaded no keys in time, or left): its next login tries again.
      shared.delete(deviceId)
      throw error
    }
    this.deps.log(`conn${connection.id} app-state key shared with device ${deviceId}`)
  }

  /** `<sync>` with one `<collection>` per collection: uploads (with `<patch>`) and fetches. */
  async answer(request: IqRequest): Promise<void> {
    const me = request.connection.login
    if (!me) return request.fail(401, "not-authorized")
    const state = this.of(me.account)
    const answers: BinaryNode[] = []
    for (const collection of childrenByTag(getBinaryNodeChild(request.iq, "sync"), "collection")) {
      const name = collection.attrs.name
      if (!isCollectionName(name)) answers.push(errorCollection(name ?? "", 400, "bad-request"))
      else if (childrenByTag(collection, "patch").length > 0) answers.push(this.upload(state, me, name, collection))
      else answers.push(await this.fetch(state, name, collection))
    }
    request.reply([{ tag: "sync", attrs: {}, content: answers }])
  }

  private upload(state: AccountAppState, sender: { account: SimAccount; deviceId: number }, name: CollectionName, collection: BinaryNode): BinaryNode {
    const base = Number(collection.attrs.version ?? 0)
    let version = base
    for (const patch of childrenByTag(collection, "patch")) {
      const verdict = state.applyPatch(name, version, contentBytes(patch) ?? new Uint8Array())
      if (!verdict.ok) {
        this.deps.log(`app-state ${name}: patch refused (${verdict.code}): ${verdict.reason}`)
        const missed = verdict.code === 409 ? patchesNode(state.patchesAfter(name, version, PATCHES_PER_ANSWER).patches) : []
        return errorCollection(name, verdict.code, verdict.text, [...missed], state.collection(name).version)
      }
      version = verdict.version
    }
    this.announce(sender.account, name, version, sender.deviceId)
    return { tag: "collection", attrs: { name, version: String(version) } }
  }

  private async fetch(state: AccountAppState, name: CollectionName, collection: BinaryNode): Promise<BinaryNode> {
    const current = state.collection(name).version
    if (collection.attrs.return_snapshot === "true" && this.snapshots && current > 0) {
      const reference = await uploadSnapshot(state.snapshot(name), this.deps.media)
      return { tag: "collection", attrs: { name, version: String(current) }, content: [{ tag: "snapshot", attrs: {}, content: reference }] }
    }
    // Without a snapshot, the patches after the version the client holds (0 for a fresh one) bring it to the same state.
    const { patches, hasMore } = state.patchesAfter(name, Number(collection.attrs.version || 0), PATCHES_PER_ANSWER)
    const attrs: Record<string, string> = { name, version: String(patches.at(-1)?.version ?? current) }
    if (hasMore) attrs.has_more_patches = "true"
    return { tag: "collection", attrs, content: patchesNode(patches) }
  }

  /** `server_sync` for one changed collection to every device of the account but the one that made the change. */
  private announce(account: SimAccount, name: CollectionName, version: number, exceptDeviceId?: number): void {
    const node: BinaryNode = {
      tag: "notification",
      attrs: { from: S_WHATSAPP_NET, type: "server_sync", id: newMessageId(), t: unixSeconds(this.deps.nowMs()) },
      content: [{ tag: "collection", attrs: { name, version: String(version) } }],
    }
    let targets: DeviceTarget[]
    try {
      targets = this.deps.targets(account)
    } catch {
      // No device is linked (or none can hold it): nobody to tell; a device that links later syncs from scratch.
      return
    }
    for (const target of targets) if (target.deviceId !== exceptDeviceId) target.send(node)
  }
}

function patchesNode(patches: readonly { bytes: Uint8Array }[]): BinaryNode[] {
  return patches.length === 0 ? [] : [{ tag: "patches", attrs: {}, content: patches.map((patch) => ({ tag: "patch", attrs: {}, content: patch.bytes })) }]
}

function errorCollection(name: string, code: number, text: string, content: BinaryNode[] = [], version?: number): BinaryNode {
  return {
    tag: "collection",
    attrs: { name, type: "error", ...(version === undefined ? {} : { version: String(version) }) },
    content: [{ tag: "error", attrs: { code: String(code), text } }, ...content],
  }
}

/**
 * Encrypts a snapshot as WhatsApp media of type `md-app-state` (HKDF info "WhatsApp App State
 * Keys"; AES-256-CBC and a 10-byte HMAC-SHA256, as Baileys' `downloadContentFromMessage` reads it),
 * puts it on the media host and returns the encoded `ExternalBlobReference`.
 */
async function uploadSnapshot(snapshot: proto.ISyncdSnapshot, media: MediaHost): Promise<Uint8Array> {
  const plaintext = proto.SyncdSnapshot.encode(snapshot).finish()
  const mediaKey = randomBytes(32)
  const { iv, cipherKey, macKey } = await getMediaKeys(mediaKey, "md-app-state")
  const cipher = createCipheriv("aes-256-cbc", cipherKey, iv)
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()])
  const file = Buffer.concat([ciphertext, createHmac("sha256", macKey!).update(iv).update(ciphertext).digest().subarray(0, 10)])
  const stored = media.put(file)
  return proto.ExternalBlobReference.encode({
    mediaKey,
    directPath: stored.directPath,
    handle: "sim",
    fileSizeBytes: plaintext.length,
    fileSha256: createHash("sha256").update(plaintext).digest(),
    fileEncSha256: createHash("sha256").update(file).digest(),
  }).finish()
}

/** The IQ handlers of app-state sync, for iq-handlers.ts. */
export const APP_STATE_IQS: Record<string, IqHandler> = {
  "w:sync:app:state/set/sync": (request) => request.world.appState.answer(request),
}

/**
 * Routes Baileys' download of app-state snapshots to the simulator's media host in this process:
 * Baileys builds their URL on `mmg.whatsapp.net` (an `ExternalBlobReference` carries no host;
 * lib/Utils/messages-media.js `getUrlFromDirectPath`), as a hosts-file entry would. Returns the restore function.
 */
export function routeWhatsAppMediaHost(media: MediaHost, scope: { fetch: typeof fetch } = globalThis): () => void {
  const original = scope.fetch
  const routed = (input: string | URL | Request, init?: BunFetchRequestInit): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url
    const parsed = URL.canParse(url) ? new URL(url) : undefined
    return parsed?.host === "mmg.whatsapp.net" ? media.fetch(`${media.origin}${parsed.pathname}${parsed.search}`, init) : original(input, init)
  }
  scope.fetch = Object.assign(routed, { preconnect: original.preconnect }) as typeof fetch
  return () => {
    scope.fetch = original
  }
}
