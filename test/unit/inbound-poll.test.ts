import { describe, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import { optionHash, tallyPoll } from "../../src/domain/poll-rules"
import { mapPoll } from "../../src/whatsapp/baileys/inbound-poll"

const sha = (s: string) => createHash("sha256").update(s).digest("hex")

describe("a contact's poll as the adapter reads it", () => {
  const cases = [
    {
      name: "V3 with one answer",
      content: { pollCreationMessageV3: { name: "Lunch?", options: [{ optionName: "yes" }, { optionName: "no" }], selectableOptionsCount: 1 } },
      expected: { question: "Lunch?", options: ["yes", "no"], optionHashes: [sha("yes"), sha("no")], multipleAnswers: false },
    },
    {
      name: "V1 with any number of answers (count 0)",
      content: { pollCreationMessage: { name: "Days", options: [{ optionName: "Mon" }, { optionName: "Tue" }], selectableOptionsCount: 0 } },
      expected: { question: "Days", options: ["Mon", "Tue"], optionHashes: [sha("Mon"), sha("Tue")], multipleAnswers: true },
    },
    {
      name: "an option with a control character is stored escaped but hashed as sent",
      content: { pollCreationMessage: { name: "Q\u001b[31m", options: [{ optionName: "a\nb" }, { optionName: "c" }], selectableOptionsCount: 1 } },
      expected: { question: "Q\\x1b[31m", options: ["a\\nb", "c"], optionHashes: [sha("a\nb"), sha("c")], multipleAnswers: false },
    },
    { name: "one option is no poll", content: { pollCreationMessage: { name: "Q", options: [{ optionName: "only" }] } }, expected: null },
    { name: "no poll", content: {}, expected: null },
  ]
  for (const c of cases) test(c.name, () => expect(mapPoll(c.content)).toEqual(c.expected))

  test("more than 12 options keeps the first 12; a question over 255 characters is cut with an ellipsis", () => {
    const options = Array.from({ length: 14 }, (_, i) => ({ optionName: `o${i}` }))
    const poll = mapPoll({ pollCreationMessage: { name: "q".repeat(300), options } })!
    expect(poll.options).toHaveLength(12)
    expect(poll.question).toHaveLength(255)
    expect(poll.question.endsWith("…")).toBe(true)
  })
})

describe("tallying", () => {
  const poll = { question: "Q", options: ["A", "B", "C"], optionHashes: ["A", "B", "C"].map(optionHash), multipleAnswers: true }
  const vote = (voter: string, chosen: string[], votedAtMs: number) => ({ phoneId: "ph", pollWaMessageId: "P", voter, optionHashes: chosen, votedAtMs })

  test("counts each voter once per option, ignores hashes of no option, lists a withdrawn vote with no options", () => {
    const results = tallyPoll(poll, [
      vote("+1", [optionHash("A"), optionHash("C"), optionHash("A")], 1),
      vote("+2", [optionHash("C"), "deadbeef"], 2),
      vote("+3", [], 3),
    ])
    expect(results.options).toEqual([{ name: "A", votes: 1 }, { name: "B", votes: 0 }, { name: "C", votes: 2 }])
    expect(results.voters.map((v) => [v.voter, v.options])).toEqual([["+1", ["A", "C"]], ["+2", ["C"]], ["+3", []]])
  })
})
