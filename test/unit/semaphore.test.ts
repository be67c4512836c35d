import { describe, expect, test } from "bun:test"
import { createSemaphore, type Release } from "../../src/lib/semaphore"

describe("createSemaphore", () => {
  const cases: Array<{ limit: number; callers: number }> = [
    { limit: 1, callers: 5 },
    { limit: 4, callers: 4 },
    { limit: 4, callers: 50 },
    { limit: 8, callers: 3 },
  ]
  for (const { limit, callers } of cases) {
    test(`limit ${limit}, ${callers} callers: at most ${limit} hold a slot at once, all are served in arrival order`, () => {
      const semaphore = createSemaphore(limit)
      const held: Array<{ caller: number; release: Release }> = []
      const servedOrder: number[] = []
      let peak = 0
      for (let caller = 0; caller < callers; caller++) {
        semaphore.acquire((release) => {
          servedOrder.push(caller)
          held.push({ caller, release })
          peak = Math.max(peak, semaphore.active)
        })
      }
      expect(held).toHaveLength(Math.min(limit, callers))
      expect(semaphore.waiting).toBe(Math.max(0, callers - limit))
      while (held.length > 0) held.shift()!.release()
      expect(peak).toBeLessThanOrEqual(limit)
      expect(servedOrder).toEqual(Array.from({ length: callers }, (_, index) => index))
      expect(semaphore.active).toBe(0)
      expect(semaphore.waiting).toBe(0)
    })
  }

  test("releasing twice gives back one slot only", () => {
    const semaphore = createSemaphore(1)
    let first: Release | undefined
    semaphore.acquire((release) => (first = release))
    let secondGranted = false
    let thirdGranted = false
    semaphore.acquire(() => (secondGranted = true))
    semaphore.acquire(() => (thirdGranted = true))
    first!()
    first!()
    expect(secondGranted).toBe(true)
    expect(thirdGranted).toBe(false)
    expect(semaphore.active).toBe(1)
  })

  test("a free slot is granted synchronously, before acquire returns", () => {
    const semaphore = createSemaphore(2)
    let granted = false
    semaphore.acquire(() => (granted = true))
    expect(granted).toBe(true)
  })

  for (const limit of [0, -1, 1.5, Number.NaN]) {
    test(`limit ${limit} is refused`, () => {
      expect(() => createSemaphore(limit)).toThrow("positive integer")
    })
  }
})
