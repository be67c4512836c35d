const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** Base62 text of `byteCount` CSPRNG bytes; 32 bytes give 43 characters (256 bits). */
export function randomBase62(byteCount: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(byteCount))
  let n = 0n
  for (const b of bytes) n = (n << 8n) | BigInt(b)
  const length = Math.ceil((byteCount * 8) / Math.log2(62))
  let out = ""
  for (let i = 0; i < length; i++) {
    out = BASE62[Number(n % 62n)] + out
    n /= 62n
  }
  return out
}

/** Lower-case hex HMAC-SHA-256 of a UTF-8 string under a key. */
export function hmacSha256Hex(key: string, value: string): string {
  return new Bun.CryptoHasher("sha256", key).update(value).digest("hex")
}

/** Lower-case hex SHA-256 of a UTF-8 string. */
export function sha256Hex(value: string): string {
  return new Bun.CryptoHasher("sha256").update(value).digest("hex")
}

/**
 * Compares two strings in time independent of where they differ: both are hashed first, and the
 * two 32-byte digests are compared by folding every byte's difference together. (node:crypto's
 * timingSafeEqual does the same, but loading node:crypto costs every start about 15 ms.)
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = new Bun.CryptoHasher("sha256").update(a).digest()
  const hb = new Bun.CryptoHasher("sha256").update(b).digest()
  let difference = 0
  for (let i = 0; i < ha.length; i++) difference |= ha[i]! ^ hb[i]!
  return difference === 0
}
