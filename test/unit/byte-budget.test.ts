import { describe, expect, test } from "bun:test"
import { createByteBudget, type ReleaseBytes } from "../../src/lib/byte-budget"

/** Lets queued promise callbacks run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 3; i++) await Promise.resolve()
}

describe("byte budget", () => {
  test.each([
    { name: "requests that fit together are granted at once", limit: 100, requests: [40, 60], granted: [0, 1] },
    { name: "a request that does not fit waits", limit: 100, requests: [60, 60], granted: [0] },
    { name: "a request larger than the budget runs alone rather than never", limit: 100, requests: [250], granted: [0] },
    { name: "a request larger than the budget waits for the holders before it", limit: 100, requests: [10, 250], granted: [0] },
    { name: "a small request queues behind a waiting large one: no overtaking", limit: 100, requests: [60, 60, 10], granted: [0] },
    { name: "zero bytes (a text part) never waits on an empty queue", limit: 100, requests: [100, 0], granted: [0, 1] },
  ])("$name", async ({ limit, requests, granted }) => {
    const budget = createByteBudget(limit)
    const got: number[] = []
    requests.forEach((bytes, i) => void budget.acquire(bytes).then(() => got.push(i)))
    await flush()
    expect(got).toEqual([...granted])
    expect(budget.waiting).toBe(requests.length - granted.length)
  })

  test("a release lets the waiters at the head of the queue in, as many as then fit, in order", async () => {
    const budget = createByteBudget(100)
    const releases: ReleaseBytes[] = []
    const order: number[] = []
    for (const [i, bytes] of [80, 50, 30, 20].entries()) void budget.acquire(bytes).then((release) => (order.push(i), releases.push(release)))
    await flush()
    expect(order).toEqual([0])
    releases[0]!()
    await flush()
    expect(order).toEqual([0, 1, 2, 3])
    expect(budget.inUseBytes).toBe(100)
  })

  test("releasing twice gives the bytes back once", async () => {
    const budget = createByteBudget(100)
    const release = await budget.acquire(70)
    release()
    release()
    expect(budget.inUseBytes).toBe(0)
    await budget.acquire(30)
    expect(budget.inUseBytes).toBe(30)
  })

  test("an oversized request holds the whole budget, not more", async () => {
    const budget = createByteBudget(100)
    const release = await budget.acquire(1_000)
    expect(budget.inUseBytes).toBe(100)
    release()
    expect(budget.inUseBytes).toBe(0)
  })

  test.each([0, -1, 1.5, Number.NaN])("a limit of %p is refused", (limit) => {
    expect(() => createByteBudget(limit)).toThrow(/positive integer/)
  })
})
