import { timingSafeEqual } from "node:crypto"

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

/** Lower-case hex SHA-256 of a UTF-8 string. */
export function sha256Hex(value: string): string {
  return new Bun.CryptoHasher("sha256").update(value).digest("hex")
}

/** Compares two strings in time independent of where they differ (both are hashed first). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = new Bun.CryptoHasher("sha256").update(a).digest()
  const hb = new Bun.CryptoHasher("sha256").update(b).digest()
  return timingSafeEqual(ha, hb)
}
