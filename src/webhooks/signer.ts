/**
 * The signature header of the spec: `t=<unix seconds>,v1=<hex>` where v1 is the lowercase hex
 * HMAC-SHA256 of `<t>.<raw body>`, keyed with the secret string's UTF-8 bytes (as Stripe does,
 * so Stripe's own verifier accepts it). During a secret rotation both secrets sign and the
 * header carries one v1 per secret, newest first.
 */
export function signatureHeader(secrets: readonly string[], timestampSeconds: number, rawBody: string): string {
  const signed = `${timestampSeconds}.${rawBody}`
  const parts = secrets.map((secret) => `v1=${new Bun.CryptoHasher("sha256", secret).update(signed).digest("hex")}`)
  return [`t=${timestampSeconds}`, ...parts].join(",")
}

/** A new signing secret: `whsec_` + base64 of 32 random bytes (docs/decisions.md § "Webhooks"). */
export function newSigningSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`
}
