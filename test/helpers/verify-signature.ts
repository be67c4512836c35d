import { createHmac, timingSafeEqual } from "node:crypto"

/**
 * An independent verifier of `X-Service-Signature`, written from the spec text only (not from
 * wagate's signer): `t=<unix>,v1=<hex>[,v1=…]`, v1 = hex HMAC-SHA256 over `<t>.<raw body>` keyed
 * with the secret string, any v1 may match, compared in constant time, |now − t| ≤ tolerance.
 */
export function verifySignature(header: string, rawBody: string, secret: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const parts = header.split(",").map((p) => p.split("=") as [string, string])
  const t = parts.find(([k]) => k === "t")?.[1]
  const signatures = parts.filter(([k]) => k === "v1").map(([, v]) => v)
  if (t === undefined || !/^\d+$/.test(t) || signatures.length === 0) return false
  if (Math.abs(nowSeconds - Number(t)) > toleranceSeconds) return false
  const expected = createHmac("sha256", secret).update(`${t}.${rawBody}`).digest()
  return signatures.some((sig) => {
    const given = Buffer.from(sig, "hex")
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
}

/** The `t` of a signature header. */
export function signatureTimestamp(header: string): number {
  return Number(/(?:^|,)t=(\d+)/.exec(header)?.[1])
}
