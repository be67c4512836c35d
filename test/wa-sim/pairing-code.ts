import { randomBytes } from "node:crypto"
import { aesDecryptCTR, aesDecryptGCM, aesEncryptCTR, derivePairingCodeKey, hkdf } from "@whiskeysockets/baileys"

/**
 * The primary phone's half of "link with phone number" (pairing code), the inverse of what
 * Baileys does in `requestPairingCode` and on the `link_code_companion_reg` notification:
 *
 * 1. The companion sends `companion_hello` with its ephemeral public key wrapped under a key
 *    derived from the 8-character code (PBKDF2-SHA256, 131072 rounds, random salt; AES-CTR).
 * 2. The phone, given the code the user typed, unwraps it, wraps its own ephemeral public key the
 *    same way and sends `primary_hello` with its account identity key.
 * 3. The companion answers `companion_finish`: `companion identity ‖ primary identity ‖ 32 random
 *    bytes`, AES-GCM under HKDF(ECDH(ephemerals)). Both sides then derive the ADV secret from the two
 *    ECDH results and the random bytes, which replaces the one a QR code would have carried.
 *
 * A wrong code is only detected at step 3: the key bundle no longer decrypts.
 */

/** Salt, IV and payload lengths of a wrapped ephemeral key: `salt(32) ‖ iv(16) ‖ key(32)`. */
const SALT_BYTES = 32
const CTR_IV_BYTES = 16
const KEY_BYTES = 32
/** The key bundle is `salt(32) ‖ iv(12) ‖ AES-GCM(96 bytes + tag)`. */
const GCM_IV_BYTES = 12

/** Unwraps the companion's ephemeral public key from its `companion_hello`. */
export async function unwrapEphemeralKey(wrapped: Uint8Array, code: string): Promise<Buffer> {
  const bytes = Buffer.from(wrapped)
  const salt = bytes.subarray(0, SALT_BYTES)
  const iv = bytes.subarray(SALT_BYTES, SALT_BYTES + CTR_IV_BYTES)
  const payload = bytes.subarray(SALT_BYTES + CTR_IV_BYTES, SALT_BYTES + CTR_IV_BYTES + KEY_BYTES)
  return aesDecryptCTR(payload, await derivePairingCodeKey(code, salt), iv)
}

/** Wraps the phone's ephemeral public key for `primary_hello`. */
export async function wrapEphemeralKey(publicKey: Uint8Array, code: string): Promise<Buffer> {
  const salt = randomBytes(SALT_BYTES)
  const iv = randomBytes(CTR_IV_BYTES)
  return Buffer.concat([salt, iv, aesEncryptCTR(publicKey, await derivePairingCodeKey(code, salt), iv)])
}

/** The decrypted `link_code_pairing_wrapped_key_bundle` of `companion_finish`. */
export interface KeyBundle {
  companionIdentityKey: Buffer
  primaryIdentityKey: Buffer
  random: Buffer
}

/** Decrypts the companion's key bundle with the ECDH result of the two ephemeral keys. */
export function openKeyBundle(wrapped: Uint8Array, ephemeralSharedKey: Uint8Array): KeyBundle {
  const bytes = Buffer.from(wrapped)
  const salt = bytes.subarray(0, SALT_BYTES)
  const iv = bytes.subarray(SALT_BYTES, SALT_BYTES + GCM_IV_BYTES)
  const key = hkdf(ephemeralSharedKey, 32, { salt, info: "link_code_pairing_key_bundle_encryption_key" })
  const plaintext = aesDecryptGCM(bytes.subarray(SALT_BYTES + GCM_IV_BYTES), key, iv, Buffer.alloc(0))
  return {
    companionIdentityKey: plaintext.subarray(0, 32),
    primaryIdentityKey: plaintext.subarray(32, 64),
    random: plaintext.subarray(64, 96),
  }
}

/** The ADV secret both sides derive; the phone signs the companion's identity with its HMAC. */
export function deriveAdvSecret(ephemeralSharedKey: Uint8Array, identitySharedKey: Uint8Array, random: Uint8Array): Buffer {
  return Buffer.from(hkdf(Buffer.concat([ephemeralSharedKey, identitySharedKey, random]), 32, { info: "adv_secret" }))
}
