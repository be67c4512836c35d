import { randomBytes } from "node:crypto"
import { proto } from "@whiskeysockets/baileys"
import { decryptValue, expandMutationKeys, indexMac, ltHashSubtractThenAdd, patchMac, sameMac, sealMutation, snapshotMac, valueMac, type MutationKeys } from "./app-state-crypto"

/**
 * One account's app state as the simulator keeps it (test/wa-sim/README.md, "App-state sync"):
 * the five collections, each with its version, LT hash, current records by index MAC and the
 * patches that led there; and the sync key the phone created and shares with its companions.
 */

/** The collections, in the order Baileys (`ALL_WA_PATCH_NAMES`) and whatsmeow (`AllPatchNames`) list them. */
export const COLLECTION_NAMES = ["critical_block", "critical_unblock_low", "regular_high", "regular", "regular_low"] as const
export type CollectionName = (typeof COLLECTION_NAMES)[number]

export function isCollectionName(name: string | undefined): name is CollectionName {
  return (COLLECTION_NAMES as readonly string[]).includes(name ?? "")
}

const SET = proto.SyncdMutation.SyncdOperation.SET
const REMOVE = proto.SyncdMutation.SyncdOperation.REMOVE

/** A record present in a collection, with what it says (decrypted with the phone's key). */
export interface StoredRecord {
  record: proto.ISyncdRecord
  valueMac: Buffer
  index: string[]
  value: proto.ISyncActionValue
}

/** A patch as stored and handed out: its version and its encoded `SyncdPatch` (version set). */
export interface StoredPatch {
  version: number
  bytes: Uint8Array
}

interface Collection {
  version: number
  ltHash: Buffer
  records: Map<string, StoredRecord>
  patches: StoredPatch[]
  /** The snapshot MAC and key of the newest patch: they are the snapshot's at that version. */
  snapshotMac?: Buffer
  keyId?: Uint8Array
}

/** What became of a patch a client sent: applied at a new version, or refused with an IQ error code. */
export type PatchVerdict = { ok: true; version: number } | { ok: false; code: 400 | 409; text: string; reason: string }

/** A patch the simulator refused, for assertions. */
export interface PatchRefusal {
  collection: CollectionName
  code: number
  reason: string
}

export class AccountAppState {
  /** The phone's sync key (6-byte id, 32 bytes of key data), created with the account's app state. */
  readonly keyId = randomBytes(6)
  readonly keyData = randomBytes(32)
  readonly keys: MutationKeys = expandMutationKeys(this.keyData)
  readonly refusals: PatchRefusal[] = []
  private readonly collections = new Map<CollectionName, Collection>()

  collection(name: CollectionName): Readonly<Collection> {
    let collection = this.collections.get(name)
    if (!collection) {
      collection = { version: 0, ltHash: Buffer.alloc(128), records: new Map(), patches: [] }
      this.collections.set(name, collection)
    }
    return collection
  }

  /** The record an index names now (SET and not removed since), in any collection. */
  current(index: readonly string[]): StoredRecord | undefined {
    const key = indexMac(Buffer.from(JSON.stringify(index)), this.keys.index).toString("base64")
    for (const name of COLLECTION_NAMES) {
      const found = this.collections.get(name)?.records.get(key)
      if (found) return found
    }
    return undefined
  }

  /** Every record of one collection, oldest first. */
  records(name: CollectionName): StoredRecord[] {
    return [...this.collection(name).records.values()]
  }

  /** Patches after `version`, oldest first, at most `limit`. */
  patchesAfter(name: CollectionName, version: number, limit: number): { patches: StoredPatch[]; hasMore: boolean } {
    const newer = this.collection(name).patches.filter((patch) => patch.version > version)
    return { patches: newer.slice(0, limit), hasMore: newer.length > limit }
  }

  /** The collection as one `SyncdSnapshot`: its records now, the MAC and key of the patch that made this version. */
  snapshot(name: CollectionName): proto.ISyncdSnapshot {
    const collection = this.collection(name)
    return {
      version: { version: collection.version },
      records: [...collection.records.values()].map((stored) => stored.record),
      mac: collection.snapshotMac,
      keyId: { id: collection.keyId },
    }
  }

  /**
   * The phone makes a change: one mutation sealed with its key, as a patch on the current version,
   * applied through the same checks as a client's. Returns the new version.
   */
  phoneChange(name: CollectionName, index: readonly string[], value: proto.ISyncActionValue, apiVersion: number, remove = false): number {
    const collection = this.collection(name)
    const mutation = sealMutation(remove ? REMOVE : SET, index, value, apiVersion, this.keyId, this.keys)
    const version = collection.version + 1
    const hash = this.nextHash(collection, [mutation])
    const mutationMac = Buffer.from(mutation.record!.value!.blob!).subarray(-32)
    const snapshot = snapshotMac(hash, version, name, this.keys.snapshotMac)
    const patch = proto.SyncdPatch.encode({
      version: { version },
      mutations: [mutation],
      snapshotMac: snapshot,
      patchMac: patchMac(snapshot, [mutationMac], version, name, this.keys.patchMac),
      keyId: { id: this.keyId },
    }).finish()
    const verdict = this.applyPatch(name, collection.version, patch)
    if (!verdict.ok) throw new Error(`the phone's own patch was refused: ${verdict.reason}`)
    return verdict.version
  }

  /**
   * A patch a device sent on `baseVersion`: refused with 409 when the collection moved on (the
   * sender must sync first, as whatsmeow's `sendAppState` expects), with 400 when a MAC does not
   * verify under the phone's key; else applied, and the version bumped.
   */
  applyPatch(name: CollectionName, baseVersion: number, bytes: Uint8Array): PatchVerdict {
    const collection = this.collection(name) as Collection
    const refuse = (code: 400 | 409, text: string, reason: string): PatchVerdict => {
      this.refusals.push({ collection: name, code, reason })
      return { ok: false, code, text, reason }
    }
    if (baseVersion !== collection.version) return refuse(409, "conflict", `patch on v${baseVersion}, the collection is at v${collection.version}`)
    let patch: proto.SyncdPatch
    try {
      patch = proto.SyncdPatch.decode(bytes)
    } catch {
      return refuse(400, "bad-request", "the patch does not decode")
    }
    const problem = this.verify(name, patch, baseVersion + 1)
    if (problem) return refuse(400, "bad-request", problem)
    this.apply(collection, patch)
    collection.version = baseVersion + 1
    collection.snapshotMac = Buffer.from(patch.snapshotMac!)
    collection.keyId = patch.keyId!.id!
    collection.patches.push({ version: collection.version, bytes: proto.SyncdPatch.encode({ ...patch, version: { version: collection.version } }).finish() })
    return { ok: true, version: collection.version }
  }

  /** Checks every MAC of a patch as a device holding the key does (whatsmeow appstate/decode.go); undefined when all verify. */
  private verify(name: CollectionName, patch: proto.SyncdPatch, version: number): string | undefined {
    const keyId = patch.keyId?.id
    if (!keyId || !sameMac(keyId, this.keyId)) return "the patch names a key the phone did not share"
    if (patch.mutations.length === 0) return "the patch has no mutations"
    for (const [i, mutation] of patch.mutations.entries()) {
      const record = mutation.record
      const blob = record?.value?.blob
      if (!record || !blob || blob.length < 48 || !record.index?.blob || !sameMac(record.keyId?.id, this.keyId)) return `mutation #${i + 1} is incomplete`
      const encrypted = blob.subarray(0, -32)
      if (!sameMac(blob.subarray(-32), valueMac(mutation.operation ?? SET, encrypted, keyId, this.keys.valueMac))) return `mutation #${i + 1}: value MAC mismatch`
      let data: proto.SyncActionData
      try {
        data = decryptValue(encrypted, this.keys.valueEncryption)
      } catch {
        return `mutation #${i + 1} does not decrypt`
      }
      if (!sameMac(record.index.blob, indexMac(data.index ?? new Uint8Array(), this.keys.index))) return `mutation #${i + 1}: index MAC mismatch`
    }
    const expectedSnapshot = snapshotMac(this.nextHash(this.collection(name), patch.mutations), version, name, this.keys.snapshotMac)
    if (!sameMac(patch.snapshotMac, expectedSnapshot)) return "snapshot MAC mismatch: the LT hash after the patch differs"
    const macs = patch.mutations.map((mutation) => Buffer.from(mutation.record!.value!.blob!).subarray(-32))
    if (!sameMac(patch.patchMac, patchMac(patch.snapshotMac ?? new Uint8Array(), macs, version, name, this.keys.patchMac))) return "patch MAC mismatch"
    return undefined
  }

  /** The LT hash after a patch: each mutation removes the value its index had (if any) and a SET adds its own. */
  private nextHash(collection: Readonly<Collection>, mutations: readonly proto.ISyncdMutation[]): Buffer {
    const latest = new Map<string, Buffer | undefined>()
    const subtract: Buffer[] = []
    const add: Buffer[] = []
    for (const mutation of mutations) {
      const key = Buffer.from(mutation.record!.index!.blob!).toString("base64")
      const previous = latest.has(key) ? latest.get(key) : collection.records.get(key)?.valueMac
      if (previous) subtract.push(previous)
      const mac = Buffer.from(mutation.record!.value!.blob!).subarray(-32)
      const isSet = (mutation.operation ?? SET) === SET
      if (isSet) add.push(mac)
      latest.set(key, isSet ? mac : undefined)
    }
    return ltHashSubtractThenAdd(collection.ltHash, subtract, add)
  }

  private apply(collection: Collection, patch: proto.SyncdPatch): void {
    collection.ltHash = this.nextHash(collection, patch.mutations)
    for (const mutation of patch.mutations) {
      const record = mutation.record!
      const key = Buffer.from(record.index!.blob!).toString("base64")
      if ((mutation.operation ?? SET) === REMOVE) {
        collection.records.delete(key)
        continue
      }
      const blob = Buffer.from(record.value!.blob!)
      const data = decryptValue(blob.subarray(0, -32), this.keys.valueEncryption)
      // Re-inserted so the records keep the order of their last change.
      collection.records.delete(key)
      collection.records.set(key, { record, valueMac: blob.subarray(-32), index: JSON.parse(Buffer.from(data.index ?? []).toString()), value: data.value ?? {} })
    }
  }
}
