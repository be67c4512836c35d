import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { BoundedLog } from "./bounded-log"
import { Outbox, type OutboundMessage } from "./outbound"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

describe("BoundedLog", () => {
  const cases: Array<{ capacity: number; appended: number; keptFirst: number; kept: number }> = [
    { capacity: 4, appended: 3, keptFirst: 0, kept: 3 },
    { capacity: 4, appended: 4, keptFirst: 0, kept: 4 },
    { capacity: 4, appended: 5, keptFirst: 1, kept: 4 },
    { capacity: 4, appended: 100, keptFirst: 96, kept: 4 },
    { capacity: 1, appended: 7, keptFirst: 6, kept: 1 },
  ]
  for (const { capacity, appended, keptFirst, kept } of cases) {
    test(`capacity ${capacity} after ${appended} appends keeps the newest ${kept} and counts all ${appended}`, () => {
      const log = new BoundedLog<number>(capacity)
      for (let index = 0; index < appended; index++) log.push(index)
      expect(log.retained).toEqual(Array.from({ length: kept }, (_, offset) => keptFirst + offset))
      expect(log.total).toBe(appended)
      expect(log.some((entry) => entry === appended - 1)).toBe(true)
      expect(log.some((entry) => entry === keptFirst - 1)).toBe(false)
    })
  }

  test("the backing array never holds more than capacity and a quarter, however many are appended", () => {
    const log = new BoundedLog<number>(100)
    let largest = 0
    for (let index = 0; index < 10_000; index++) {
      log.push(index)
      largest = Math.max(largest, (log as unknown as { entries: number[] }).entries.length)
    }
    expect(largest).toBeLessThanOrEqual(125)
  })

  test("a capacity below one is refused", () => {
    expect(() => new BoundedLog(0)).toThrow("positive integer")
  })
})

describe("Outbox", () => {
  const message = (id: string, to: string): OutboundMessage => ({ id, to }) as unknown as OutboundMessage

  test("byId finds a message among thousands through the index, and forgets those past capacity", () => {
    const outbox = new Outbox(1_000)
    for (let index = 0; index < 3_000; index++) outbox.add(message(`m${index}`, "a"))
    expect(outbox.byId("m2999")?.id).toBe("m2999")
    expect(outbox.byId("m2000")?.id).toBe("m2000")
    expect(outbox.byId("m1999")).toBeUndefined()
    expect(outbox.all).toHaveLength(1_000)
    expect(outbox.total).toBe(3_000)
  })

  test("next returns each matching message once, oldest first, skipping other recipients", async () => {
    const outbox = new Outbox()
    outbox.add(message("1", "a"))
    outbox.add(message("2", "b"))
    outbox.add(message("3", "a"))
    const toA = (candidate: OutboundMessage) => candidate.to === "a"
    const options = { timeoutMs: 1_000, what: "a message to a" }
    expect((await outbox.next(toA, options)).id).toBe("1")
    expect((await outbox.next(toA, options)).id).toBe("3")
    expect((await outbox.next((candidate) => candidate.to === "b", options)).id).toBe("2")
    const later = outbox.next(toA, options)
    outbox.add(message("4", "a"))
    expect((await later).id).toBe("4")
  })
})
