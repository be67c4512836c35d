/** One draw from a key's shared bucket. */
export interface RateDraw {
  keyId: string
  /** The key's limit: the bucket's capacity, refilled over a minute. */
  limitPerMinute: number
  /** Whole tokens wanted; 0 only hands tokens back. */
  wanted: number
  /** Tokens an earlier draw granted that were not used, put back before the cap applies. */
  returned: number
  nowMs: number
}

/** What a draw did. */
export interface RateDrawResult {
  /** Whole tokens granted, from 0 to `wanted`. */
  granted: number
  /** Tokens left in the bucket at `nowMs` (a fraction: it refills continuously). */
  tokens: number
}
