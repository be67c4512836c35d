import { describe, expect, test } from "bun:test"
import { toIso, toIsoOrNull, utcDayStartMs, utcMonthStartMs, utcWeekStartMs } from "../../src/lib/time"

const at = (iso: string) => Date.parse(iso)

describe("utcDayStartMs", () => {
  test.each([
    { name: "midnight is its own start", instant: "2026-01-05T00:00:00.000Z", start: "2026-01-05T00:00:00.000Z" },
    { name: "the last millisecond of a day", instant: "2026-01-05T23:59:59.999Z", start: "2026-01-05T00:00:00.000Z" },
    { name: "midday", instant: "2026-03-15T12:34:56.789Z", start: "2026-03-15T00:00:00.000Z" },
    { name: "a leap day", instant: "2028-02-29T18:00:00.000Z", start: "2028-02-29T00:00:00.000Z" },
    { name: "New Year's Eve", instant: "2025-12-31T23:59:59.999Z", start: "2025-12-31T00:00:00.000Z" },
    { name: "a European DST change does not matter in UTC", instant: "2026-03-29T01:30:00.000Z", start: "2026-03-29T00:00:00.000Z" },
  ])("$name", ({ instant, start }) => {
    expect(toIso(utcDayStartMs(at(instant)))).toBe(start)
  })
})

describe("utcWeekStartMs (weeks start on Monday)", () => {
  test.each([
    { name: "Monday 00:00 is its own start", instant: "2026-01-05T00:00:00.000Z", start: "2026-01-05T00:00:00.000Z" },
    { name: "Monday afternoon", instant: "2026-01-05T15:00:00.000Z", start: "2026-01-05T00:00:00.000Z" },
    { name: "Wednesday", instant: "2026-01-07T09:00:00.000Z", start: "2026-01-05T00:00:00.000Z" },
    { name: "Saturday", instant: "2026-01-10T09:00:00.000Z", start: "2026-01-05T00:00:00.000Z" },
    { name: "the last millisecond of Sunday belongs to the week before", instant: "2026-01-11T23:59:59.999Z", start: "2026-01-05T00:00:00.000Z" },
    { name: "the next Monday starts a new week", instant: "2026-01-12T00:00:00.000Z", start: "2026-01-12T00:00:00.000Z" },
    { name: "a week across the year boundary", instant: "2026-01-01T10:00:00.000Z", start: "2025-12-29T00:00:00.000Z" },
    { name: "a week across a month boundary", instant: "2026-03-01T10:00:00.000Z", start: "2026-02-23T00:00:00.000Z" },
    { name: "a week containing a leap day", instant: "2028-03-01T10:00:00.000Z", start: "2028-02-28T00:00:00.000Z" },
  ])("$name", ({ instant, start }) => {
    expect(toIso(utcWeekStartMs(at(instant)))).toBe(start)
  })

  test("every day of a week maps to the same Monday", () => {
    const monday = at("2026-06-01T00:00:00.000Z")
    for (let hour = 0; hour < 7 * 24; hour++) expect(utcWeekStartMs(monday + hour * 3_600_000 + 59_999)).toBe(monday)
    expect(utcWeekStartMs(monday + 7 * 86_400_000)).toBe(monday + 7 * 86_400_000)
  })
})

describe("utcMonthStartMs", () => {
  test.each([
    { name: "the 1st at 00:00 is its own start", instant: "2026-01-01T00:00:00.000Z", start: "2026-01-01T00:00:00.000Z" },
    { name: "the last millisecond of January", instant: "2026-01-31T23:59:59.999Z", start: "2026-01-01T00:00:00.000Z" },
    { name: "February 1st", instant: "2026-02-01T00:00:00.000Z", start: "2026-02-01T00:00:00.000Z" },
    { name: "a leap day", instant: "2028-02-29T23:59:59.999Z", start: "2028-02-01T00:00:00.000Z" },
    { name: "December 31st", instant: "2025-12-31T23:59:59.999Z", start: "2025-12-01T00:00:00.000Z" },
    { name: "a 30-day month's last day", instant: "2026-04-30T12:00:00.000Z", start: "2026-04-01T00:00:00.000Z" },
  ])("$name", ({ instant, start }) => {
    expect(toIso(utcMonthStartMs(at(instant)))).toBe(start)
  })
})

describe("toIso and toIsoOrNull", () => {
  test.each([
    { name: "milliseconds are always shown", ms: at("2026-01-05T00:00:00Z"), iso: "2026-01-05T00:00:00.000Z" },
    { name: "the Unix epoch", ms: 0, iso: "1970-01-01T00:00:00.000Z" },
    { name: "a millisecond", ms: at("2026-01-05T10:11:12.345Z"), iso: "2026-01-05T10:11:12.345Z" },
  ])("toIso: $name", ({ ms, iso }) => {
    expect(toIso(ms)).toBe(iso)
    expect(toIsoOrNull(ms)).toBe(iso)
  })

  test.each([null, undefined])("toIsoOrNull(%p) is null", (value) => {
    expect(toIsoOrNull(value)).toBeNull()
  })
})
