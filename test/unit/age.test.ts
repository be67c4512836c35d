import { expect, test } from "bun:test"
import { formatAge } from "../../src/lib/age"

test.each([
  [0, "0.0 s"],
  [-5, "0.0 s"],
  [2_149, "2.1 s"],
  [59_999, "59.9 s"],
  [60_000, "1 min 00 s"],
  [245_900, "4 min 05 s"],
  [3_599_999, "59 min 59 s"],
  [3_600_000, "1 h 00 min"],
  [11_520_000, "3 h 12 min"],
  [86_399_999, "23 h 59 min"],
  [86_400_000, "1 d 0 h"],
  [187_200_000, "2 d 4 h"],
])("formatAge(%p) is %p: the two largest units, rounded down", (ms, text) => {
  expect(formatAge(ms)).toBe(text)
})
