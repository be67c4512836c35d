import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto"
import { proto } from "@whiskeysockets/baileys"

/**
 * WhatsApp's app-state cryptography, written independently of Baileys from tulir/whatsmeow's
 * appstate/keys.go (`expandAppStateKeys`), appstate/hash.go (`generateContentMAC`,
 * `generateSnapshotMAC`, `generatePatchMAC`, `updateHash`) and appstate/lthash/lthash.go, so a
 * patch Baileys (lib/Utils/chat-utils.js, lib/Utils/lt-hash.js) encodes is checked by a second
 * implementation, not by itself.
 */

/** The five keys one app-state sync key expands to (HKDF-SHA256, info "WhatsApp Mutation Keys", 160 bytes). */
export interface MutationKeys {
  index: Buffer
  valueEncryption: Buffer
  valueMac: Buffer
  snapshotMac: Buffer
  patchMac: Buffer
}

export function expandMutationKeys(keyData: Uint8Array): MutationKeys {
  const expanded = Buffer.from(hkdfSync("sha256", keyData, Buffer.alloc(0), "WhatsApp Mutation Keys", 160))
  return {
    index: expanded.subarray(0, 32),
    valueEncryption: expanded.subarray(32, 64),
    valueMac: expanded.subarray(64, 96),
    snapshotMac: expanded.subarray(96, 128),
    patchMac: expanded.subarray(128, 160),
  }
}

function hmac(algorithm: "sha256" | "sha512", key: Uint8Array, ...parts: Uint8Array[]): Buffer {
  const mac = createHmac(algorithm, key)
  for (const part of parts) mac.update(part)
  return mac.digest()
}

function uint64BE(value: number): Buffer {
  const bytes = Buffer.alloc(8)
  bytes.writeBigUInt64BE(BigInt(value))
  return bytes
}

/** Constant-time equality of two MACs of any length. */
export function sameMac(a: Uint8Array | null | undefined, b: Uint8Array): boolean {
  return !!a && a.length === b.length && timingSafeEqual(a, b)
}

/** The value MAC: HMAC-SHA512 over operation+1 ‖ key id ‖ encrypted value ‖ uint64(len(key id)+1), first 32 bytes. */
export function valueMac(operation: proto.SyncdMutation.SyncdOperation, encryptedValue: Uint8Array, keyId: Uint8Array, key: Uint8Array): Buffer {
  return hmac("sha512", key, Buffer.from([operation + 1]), keyId, encryptedValue, uint64BE(keyId.length + 1)).subarray(0, 32)
}

/** The index MAC: HMAC-SHA256 of the index's JSON bytes. */
export function indexMac(indexJson: Uint8Array, key: Uint8Array): Buffer {
  return hmac("sha256", key, indexJson)
}

/** The snapshot MAC of a collection state: HMAC-SHA256 over LT hash ‖ uint64(version) ‖ name. */
export function snapshotMac(ltHash: Uint8Array, version: number, name: string, key: Uint8Array): Buffer {
  return hmac("sha256", key, ltHash, uint64BE(version), Buffer.from(name))
}

/** The patch MAC: HMAC-SHA256 over snapshot MAC ‖ each mutation's value MAC ‖ uint64(version) ‖ name. */
export function patchMac(snapshot: Uint8Array, valueMacs: readonly Uint8Array[], version: number, name: string, key: Uint8Array): Buffer {
  return hmac("sha256", key, snapshot, ...valueMacs, uint64BE(version), Buffer.from(name))
}

/**
 * The LT hash ("WhatsApp Patch Integrity"): each value MAC is HKDF-expanded to 128 bytes and
 * added to (or, for a value replaced or removed, subtracted from) the state pointwise as
 * little-endian uint16 with wrap-around, so the hash depends only on the set of values present.
 */
export function ltHashSubtractThenAdd(base: Uint8Array, subtract: readonly Uint8Array[], add: readonly Uint8Array[]): Buffer {
  const out = Buffer.from(base)
  const mix = (item: Uint8Array, sign: 1 | -1) => {
    const expanded = Buffer.from(hkdfSync("sha256", item, Buffer.alloc(0), "WhatsApp Patch Integrity", 128))
    for (let i = 0; i < out.length; i += 2) out.writeUInt16LE((out.readUInt16LE(i) + sign * expanded.readUInt16LE(i)) & 0xffff, i)
  }
  for (const item of subtract) mix(item, -1)
  for (const item of add) mix(item, 1)
  return out
}

/** Encrypts a `SyncActionData` as a record value: IV ‖ AES-256-CBC(data). */
export function encryptValue(data: Uint8Array, key: Uint8Array): Buffer {
  const iv = randomBytes(16)
  const cipher = createCipheriv("aes-256-cbc", key, iv)
  return Buffer.concat([iv, cipher.update(data), cipher.final()])
}

/** Decrypts a record value (IV ‖ ciphertext) back to its `SyncActionData`. */
export function decryptValue(encrypted: Uint8Array, key: Uint8Array): proto.SyncActionData {
  const decipher = createDecipheriv("aes-256-cbc", key, encrypted.subarray(0, 16))
  return proto.SyncActionData.decode(Buffer.concat([decipher.update(encrypted.subarray(16)), decipher.final()]))
}

/** One mutation as the phone writes it: encrypted value with its MAC appended, and the index MAC. */
export function sealMutation(
  operation: proto.SyncdMutation.SyncdOperation,
  index: readonly string[],
  value: proto.ISyncActionValue,
  apiVersion: number,
  keyId: Uint8Array,
  keys: MutationKeys,
): proto.ISyncdMutation {
  const indexJson = Buffer.from(JSON.stringify(index))
  const data = proto.SyncActionData.encode({ index: indexJson, value, padding: new Uint8Array(0), version: apiVersion }).finish()
  const encrypted = encryptValue(data, keys.valueEncryption)
  const mac = valueMac(operation, encrypted, keyId, keys.valueMac)
  return {
    operation,
    record: { index: { blob: indexMac(indexJson, keys.index) }, value: { blob: Buffer.concat([encrypted, mac]) }, keyId: { id: keyId } },
  }
}
