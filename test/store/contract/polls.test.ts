import { expect, setDefaultTimeout, test } from "bun:test"
import type { PendingVoteRow, PollRow, PollVoteRow } from "../../../src/store/polls"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { describeStores } from "./stores"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const poll = (over: Partial<PollRow> = {}): PollRow => ({
  messageId: "msg_poll1",
  phoneId: "ph_1",
  waMessageId: "3EB0POLL",
  question: "Lunch?",
  options: ["Pizza", "Soup", "Größe ü"],
  optionHashes: ["a1", "b2", "c3"],
  multipleAnswers: true,
  createdAtMs: TEST_EPOCH_MS,
  ...over,
})
const vote = (over: Partial<PollVoteRow> = {}): PollVoteRow => ({
  phoneId: "ph_1",
  pollWaMessageId: "3EB0POLL",
  voter: "+14155550166",
  optionHashes: ["aa"],
  votedAtMs: TEST_EPOCH_MS + 10,
  ...over,
})
const pending = (over: Partial<PendingVoteRow> = {}): PendingVoteRow => ({
  phoneId: "ph_1",
  pollWaMessageId: "3EB0POLL",
  voteWaMessageId: "VOTE1",
  descriptor: '{"encPayload":"AAA"}',
  receivedAtMs: TEST_EPOCH_MS,
  ...over,
})

describeStores("polls", (open) => {
  test("a poll reads back by its message and by its phone's WhatsApp id, options in order and unchanged; recording it again keeps the first", async () => {
    const store = await open()
    await store.write((q) => q.insertPoll(poll()))
    await store.write((q) => q.insertPoll(poll({ question: "changed" })))
    expect(await store.findPoll("msg_poll1")).toEqual(poll())
    expect(await store.findPollByWaId("ph_1", "3EB0POLL")).toEqual(poll())
    expect(await store.findPollByWaId("ph_2", "3EB0POLL")).toBeNull()
    expect(await store.findPoll("msg_other")).toBeNull()
    await store.write((q) => q.insertPoll(poll({ messageId: "inmsg_single", waMessageId: "W2", multipleAnswers: false })))
    expect((await store.findPoll("inmsg_single"))?.multipleAnswers).toBe(false)
  })

  test("a voter's newer vote replaces the older; an older one arriving later is ignored; a withdrawn vote is kept as no options", async () => {
    const store = await open()
    expect(await store.write((q) => q.upsertPollVote(vote()))).toBe(true)
    expect(await store.write((q) => q.upsertPollVote(vote({ optionHashes: ["bb"], votedAtMs: TEST_EPOCH_MS + 20 })))).toBe(true)
    expect(await store.write((q) => q.upsertPollVote(vote({ optionHashes: ["cc"], votedAtMs: TEST_EPOCH_MS + 15 })))).toBe(false)
    expect(await store.listPollVotes("ph_1", "3EB0POLL")).toEqual([vote({ optionHashes: ["bb"], votedAtMs: TEST_EPOCH_MS + 20 })])
    expect(await store.write((q) => q.upsertPollVote(vote({ optionHashes: [], votedAtMs: TEST_EPOCH_MS + 30 })))).toBe(true)
    await store.write((q) => q.upsertPollVote(vote({ voter: "204519374921837@lid", optionHashes: ["aa", "bb"], votedAtMs: TEST_EPOCH_MS + 25 })))
    expect(await store.listPollVotes("ph_1", "3EB0POLL")).toEqual([
      vote({ voter: "204519374921837@lid", optionHashes: ["aa", "bb"], votedAtMs: TEST_EPOCH_MS + 25 }),
      vote({ optionHashes: [], votedAtMs: TEST_EPOCH_MS + 30 }),
    ])
    expect(await store.listPollVotes("ph_2", "3EB0POLL")).toEqual([])
  })

  test("a pending vote is kept once however often it arrives, listed for its poll, counted, and gone once deleted", async () => {
    const store = await open()
    await store.write((q) => q.savePendingVote(pending()))
    await store.write((q) => q.savePendingVote(pending({ descriptor: "other" })))
    await store.write((q) => q.savePendingVote(pending({ voteWaMessageId: "VOTE2", receivedAtMs: TEST_EPOCH_MS + 1 })))
    await store.write((q) => q.savePendingVote(pending({ pollWaMessageId: "OTHER", voteWaMessageId: "VOTE3" })))
    expect(await store.listPendingVotes("ph_1", "3EB0POLL")).toEqual([pending(), pending({ voteWaMessageId: "VOTE2", receivedAtMs: TEST_EPOCH_MS + 1 })])
    expect(await store.countPendingVotes()).toBe(3)
    await store.write((q) => q.deletePendingVote("ph_1", "3EB0POLL", "VOTE1"))
    expect((await store.listPendingVotes("ph_1", "3EB0POLL")).map((v) => v.voteWaMessageId)).toEqual(["VOTE2"])
    expect(await store.countPendingVotes()).toBe(2)
  })
})
