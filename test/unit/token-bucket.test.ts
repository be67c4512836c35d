import { describe, expect, test } from "bun:test"
import { takeToken, type BucketState, type TakeResult } from "../../src/lib/token-bucket"

const T0 = 1_767_571_200_000

/** Takes `n` tokens at one instant and returns the last result. */
function drain(limit: number, n: number, atMs = T0, start?: BucketState): TakeResult {
  let state = start
  let last: TakeResult | undefined
  for (let i = 0; i < n; i++) {
    last = takeToken(state, limit, atMs)
    state = last.state
  }
  return last!
}

describe("capacity", () => {
  test.each([
    { name: "1 per minute", limit: 1 },
    { name: "60 per minute", limit: 60 },
    { name: "the default 100 per minute", limit: 100 },
    { name: "1000 per minute", limit: 1000 },
  ])("a fresh bucket serves exactly limit requests at once ($name)", ({ limit }) => {
    const last = drain(limit, limit)
    expect(last.allowed).toBe(true)
    expect(last.remaining).toBe(0)
    expect(takeToken(last.state, limit, T0).allowed).toBe(false)
  })

  test("the first request of a fresh bucket leaves limit − 1", () => {
    const r = takeToken(undefined, 100, T0)
    expect(r).toMatchObject({ allowed: true, remaining: 99, retryAfterMs: 0 })
    expect(r.state).toEqual({ tokens: 99, updatedAtMs: T0 })
  })

  test("a long idle period refills to capacity and no further", () => {
    const empty = drain(60, 60).state
    const r = takeToken(empty, 60, T0 + 24 * 3_600_000)
    expect(r.remaining).toBe(59)
  })
})

describe("continuous refill at limit/60 per second", () => {
  test.each([
    { name: "60/min gains one token per second", limit: 60, waitMs: 1_000, remainingAfterTake: 0 },
    { name: "60/min gains 30 tokens in 30 s", limit: 60, waitMs: 30_000, remainingAfterTake: 29 },
    { name: "120/min gains 3 tokens in 1.5 s", limit: 120, waitMs: 1_500, remainingAfterTake: 2 },
    { name: "100/min gains one token per 600 ms", limit: 100, waitMs: 600, remainingAfterTake: 0 },
    { name: "100/min gains 10 tokens in 6 s", limit: 100, waitMs: 6_000, remainingAfterTake: 9 },
  ])("$name", ({ limit, waitMs, remainingAfterTake }) => {
    const empty = drain(limit, limit).state
    const r = takeToken(empty, limit, T0 + waitMs)
    expect(r.allowed).toBe(true)
    expect(r.remaining).toBe(remainingAfterTake)
  })

  test("a fraction of a token accumulates across requests instead of being lost", () => {
    // 60/min: each refused attempt 400 ms apart keeps the 0.4 and 0.8 tokens it found.
    const empty = drain(60, 60).state
    const a = takeToken(empty, 60, T0 + 400)
    const b = takeToken(a.state, 60, T0 + 800)
    const c = takeToken(b.state, 60, T0 + 1_200)
    expect([a.allowed, b.allowed, c.allowed]).toEqual([false, false, true])
    expect(c.state.tokens).toBeCloseTo(0.2, 9)
  })

  test("a clock that steps backwards adds no tokens", () => {
    const empty = drain(60, 60).state
    const r = takeToken(empty, 60, T0 - 60_000)
    expect(r.allowed).toBe(false)
    expect(r.state.tokens).toBe(0)
  })
})

describe("refusals", () => {
  test("a refusal takes no token: repeated refusals at one instant leave the same state", () => {
    const empty = drain(60, 60).state
    const first = takeToken(empty, 60, T0 + 250)
    const second = takeToken(first.state, 60, T0 + 250)
    expect(first.allowed).toBe(false)
    expect(second.state.tokens).toBe(first.state.tokens)
    expect(second.retryAfterMs).toBe(first.retryAfterMs)
    expect(first.remaining).toBe(0)
  })

  test("refusals do not push back the next allowed request", () => {
    let state = drain(60, 60).state
    // A client hammering every 250 ms is served as soon as the token it waits for exists. The
    // step is a power-of-two fraction of a token so the sum is exact in floating point.
    for (let t = 250; t < 1_000; t += 250) {
      const r = takeToken(state, 60, T0 + t)
      expect(r.allowed).toBe(false)
      state = r.state
    }
    expect(takeToken(state, 60, T0 + 1_000).allowed).toBe(true)
  })

  test.each([
    { name: "60/min, empty", limit: 60, waitMs: 0, retryAfterMs: 1_000 },
    { name: "60/min, 0.25 token", limit: 60, waitMs: 250, retryAfterMs: 750 },
    { name: "100/min, empty", limit: 100, waitMs: 0, retryAfterMs: 600 },
    { name: "1/min, empty", limit: 1, waitMs: 0, retryAfterMs: 60_000 },
    { name: "1/min, 59 s later", limit: 1, waitMs: 59_000, retryAfterMs: 1_000 },
    { name: "6000/min, empty", limit: 6_000, waitMs: 0, retryAfterMs: 10 },
  ])("retryAfterMs is exact: refused 1 ms before it, served at it ($name)", ({ limit, waitMs, retryAfterMs }) => {
    const empty = drain(limit, limit).state
    const refused = takeToken(empty, limit, T0 + waitMs)
    expect(refused.allowed).toBe(false)
    expect(refused.retryAfterMs).toBe(retryAfterMs)
    expect(takeToken(refused.state, limit, T0 + waitMs + retryAfterMs - 1).allowed).toBe(false)
    expect(takeToken(refused.state, limit, T0 + waitMs + retryAfterMs).allowed).toBe(true)
  })

  test("waiting exactly retryAfterMs after any refusal is always enough (seeded random traffic)", () => {
    let seed = 7
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648)
    let refusals = 0
    for (let trial = 0; trial < 300; trial++) {
      const limit = 1 + Math.floor(random() * 500)
      let state: BucketState | undefined
      let now = T0
      for (let i = 0; i < 100; i++) {
        // Twice the refill rate on average, so about half of the requests are refused.
        now += Math.floor(random() * (60_000 / limit))
        const r = takeToken(state, limit, now)
        if (!r.allowed) {
          refusals++
          expect(r.retryAfterMs).toBeGreaterThanOrEqual(1)
          expect(takeToken(r.state, limit, now + r.retryAfterMs).allowed).toBe(true)
        }
        state = r.state
      }
    }
    // The traffic must actually exercise refusals for the property to mean anything.
    expect(refusals).toBeGreaterThan(100)
  })
})

describe("remaining and resetAfterMs", () => {
  test.each([
    { name: "one taken of 60", limit: 60, taken: 1, remaining: 59, resetAfterMs: 1_000 },
    { name: "all 60 taken", limit: 60, taken: 60, remaining: 0, resetAfterMs: 60_000 },
    { name: "30 of 60 taken", limit: 60, taken: 30, remaining: 30, resetAfterMs: 30_000 },
    { name: "all 100 taken", limit: 100, taken: 100, remaining: 0, resetAfterMs: 60_000 },
    { name: "one taken of 100", limit: 100, taken: 1, remaining: 99, resetAfterMs: 600 },
  ])("$name: remaining $remaining, full again in $resetAfterMs ms", ({ limit, taken, remaining, resetAfterMs }) => {
    const r = drain(limit, taken)
    expect(r.remaining).toBe(remaining)
    expect(r.resetAfterMs).toBe(resetAfterMs)
  })

  test("remaining rounds fractional tokens down", () => {
    const empty = drain(60, 60).state
    // 2.5 tokens after 2.5 s; taking one leaves 1.5, reported as 1.
    const r = takeToken(empty, 60, T0 + 2_500)
    expect(r.remaining).toBe(1)
    expect(r.resetAfterMs).toBe(58_500)
  })

  test("a refusal reports the time until the bucket is full", () => {
    const empty = drain(60, 60).state
    const r = takeToken(empty, 60, T0 + 400)
    expect(r.allowed).toBe(false)
    expect(r.resetAfterMs).toBe(59_600)
  })
})

describe("changing the limit", () => {
  test("a limit lowered below the stored tokens caps them at the new capacity", () => {
    const full = takeToken(undefined, 100, T0).state
    expect(full.tokens).toBe(99)
    const r = takeToken(full, 10, T0)
    expect(r.allowed).toBe(true)
    expect(r.remaining).toBe(9)
    expect(r.state.tokens).toBe(9)
    expect(r.resetAfterMs).toBe(6_000)
  })

  test("a limit raised keeps the stored tokens and refills at the new rate", () => {
    const empty = drain(10, 10).state
    // At 600/min one token takes 100 ms instead of 6 s.
    expect(takeToken(empty, 600, T0 + 99).allowed).toBe(false)
    expect(takeToken(empty, 600, T0 + 100).allowed).toBe(true)
  })
})
