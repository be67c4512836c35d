import { describe, expect, test } from "bun:test"
import { closestWord, editDistance } from "../../src/lib/closest-word"

describe("closestWord: the option a typist meant", () => {
  test.each([
    ["hots", "host", 1],
    ["prot", "port", 1],
    ["acount", "account", 1],
    ["port", "port", 0],
    ["", "abc", 3],
    ["kitten", "sitting", 3],
  ])("editDistance(%p, %p) is %p: a swap of neighbours counts once", (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance)
    expect(editDistance(b, a)).toBe(distance)
  })

  const OPTIONS = ["port", "host", "data", "name", "rate-limit", "account", "database-url"]
  test.each([
    ["hots", "host"],
    ["prot", "port"],
    ["acount", "account"],
    ["rate", "rate-limit"],
    ["database", "database-url"],
    ["acconut", "account"],
  ])("%p means %p", (word, meant) => {
    expect(closestWord(word, OPTIONS)).toBe(meant)
  })

  test.each(["frobnicate", "x", "po", "verbose", "nmea"])("%p is close to nothing", (word) => {
    expect(closestWord(word, OPTIONS)).toBeNull()
  })
})
