import { describe, expect, test } from "bun:test"
import { ulidGenerator, type IdPrefix } from "../../src/lib/ids"
import { TestClock } from "../helpers/test-clock"

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"
const ID = /^msg_[0-9abcdefghjkmnpqrstvwxyz]{26}$/

/** The millisecond encoded in the first 10 characters after the prefix. */
function decodeTime(id: string): number {
  const time = id.slice(id.indexOf("_") + 1, id.indexOf("_") + 11)
  let ms = 0
  for (const c of time) ms = ms * 32 + CROCKFORD.indexOf(c)
  return ms
}

function expectStrictlyIncreasing(ids: string[]): void {
  for (let i = 1; i < ids.length; i++) {
    if (!(ids[i - 1]! < ids[i]!)) throw new Error(`id ${i} does not sort after id ${i - 1}: ${ids[i - 1]} >= ${ids[i]}`)
  }
}

describe("format", () => {
  test("msg_ followed by 26 lower-case Crockford base32 characters", () => {
    const ids = ulidGenerator(new TestClock())
    for (let i = 0; i < 1_000; i++) expect(ids.newId("msg")).toMatch(ID)
  })

  test.each(["msg", "inmsg", "acc", "key", "ph", "evt", "whd", "wh", "job"] satisfies IdPrefix[])(
    "the %s prefix is followed by an underscore and 26 characters",
    (prefix) => {
      const id = ulidGenerator(new TestClock()).newId(prefix)
      expect(id.startsWith(`${prefix}_`)).toBe(true)
      expect(id.slice(prefix.length + 1)).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/)
    },
  )

  test.each([
    { name: "the test epoch", ms: Date.UTC(2026, 0, 5) },
    { name: "the Unix epoch", ms: 0 },
    { name: "the largest 48-bit millisecond", ms: 2 ** 48 - 1 },
  ])("the time part encodes the clock's millisecond ($name)", ({ ms }) => {
    const id = ulidGenerator(new TestClock(ms)).newId("msg")
    expect(decodeTime(id)).toBe(ms)
  })

  test("the random part comes from the random source", () => {
    const zeros = ulidGenerator(new TestClock(0), (n) => new Uint8Array(n)).newId("msg")
    expect(zeros).toBe("msg_" + "0".repeat(26))
    const ones = ulidGenerator(new TestClock(0), (n) => new Uint8Array(n).fill(1)).newId("msg")
    expect(ones).toBe("msg_" + "0".repeat(10) + "1".repeat(16))
  })
})

describe("ordering", () => {
  test("many ids in one millisecond are strictly increasing", () => {
    const clock = new TestClock()
    const gen = ulidGenerator(clock)
    const ids = Array.from({ length: 10_000 }, () => gen.newId("msg"))
    expectStrictlyIncreasing(ids)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.every((id) => decodeTime(id) === clock.nowMs())).toBe(true)
  })

  test("ids increase across milliseconds whatever the random part", () => {
    const clock = new TestClock()
    // A falling random source: each new millisecond starts with a smaller random part.
    let calls = 0
    const gen = ulidGenerator(clock, (n) => new Uint8Array(n).fill(30 - (calls++ % 30)))
    const ids: string[] = []
    for (let i = 0; i < 100; i++) {
      ids.push(gen.newId("msg"), gen.newId("msg"))
      clock.advance(1)
    }
    expectStrictlyIncreasing(ids)
  })

  test("ids stay increasing when the clock steps backwards", () => {
    let now = Date.UTC(2026, 0, 5, 12)
    const clock = { nowMs: () => now, setTimer: () => ({ cancel() {} }) }
    const gen = ulidGenerator(clock)
    const ids = [gen.newId("msg"), gen.newId("msg")]
    now -= 60_000
    ids.push(gen.newId("msg"), gen.newId("msg"))
    now -= 1
    ids.push(gen.newId("msg"))
    now += 120_000
    ids.push(gen.newId("msg"))
    expectStrictlyIncreasing(ids)
    // While the clock is behind, ids keep the last time seen rather than the earlier one.
    expect(decodeTime(ids[3]!)).toBe(Date.UTC(2026, 0, 5, 12))
    expect(decodeTime(ids[5]!)).toBe(Date.UTC(2026, 0, 5, 12) + 59_999)
  })

  test("ids stay increasing when the random part overflows within one millisecond", () => {
    // 0xff & 31 = 31 in every position: the largest random part, so the next increment carries out.
    const gen = ulidGenerator(new TestClock(), (n) => new Uint8Array(n).fill(0xff))
    const ids = [gen.newId("msg"), gen.newId("msg"), gen.newId("msg")]
    expectStrictlyIncreasing(ids)
    expect(ids.every((id) => id.length === "msg_".length + 26)).toBe(true)
  })

  test("the increment carries into the next character", () => {
    const gen = ulidGenerator(new TestClock(0), (n) => {
      const bytes = new Uint8Array(n)
      bytes[n - 1] = 31
      return bytes
    })
    expect(gen.newId("msg")).toBe("msg_" + "0".repeat(25) + "z")
    expect(gen.newId("msg")).toBe("msg_" + "0".repeat(24) + "10")
  })
})
