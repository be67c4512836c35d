import { describe, expect, test } from "bun:test"
import { expiryClaimAtMs, fairLevel, planClaims, STRANDED_PATIENCE_TICKS, type ClaimPlanInput } from "../../src/domain/lease-planner"

const peer = (phones: number, maxPhones = 1000) => ({ phones, maxPhones })

describe("fairLevel: the smallest level at which the capped nodes hold every phone", () => {
  const cases: [string, number, number[], number][] = [
    ["no phones", 0, [1000, 1000], 0],
    ["even split", 30, [1000, 1000, 1000], 10],
    ["odd split rounds up, so the shares cover every phone", 31, [1000, 1000, 1000], 11],
    ["a small cap pushes the rest onto the others", 30, [5, 1000, 1000], 13],
    ["caps that just hold everything", 20, [10, 10], 10],
    ["caps that cannot hold everything: everyone fills up", 50, [10, 20], 20],
    ["one node", 7, [1000], 7],
  ]
  test.each(cases)("%s", (_name, total, caps, level) => {
    expect(fairLevel(total, caps)).toBe(level)
  })
})

describe("planClaims", () => {
  const base: ClaimPlanInput = { held: 0, maxPhones: 1000, others: [], unowned: 0, strandedTicks: 0 }
  const cases: [string, Partial<ClaimPlanInput>, { claim: number; fairShare: number; stranded: boolean }][] = [
    ["a lone node claims every unowned phone", { unowned: 30 }, { claim: 30, fairShare: 30, stranded: false }],
    ["a lone node stops at its maximum", { unowned: 30, maxPhones: 12 }, { claim: 12, fairShare: 12, stranded: false }],
    ["nothing unowned, nothing to claim", { held: 10, others: [peer(10), peer(10)] }, { claim: 0, fairShare: 10, stranded: false }],
    [
      "two survivors of a dead node each take their share of its phones, not all of them",
      { held: 10, others: [peer(10)], unowned: 10 },
      { claim: 5, fairShare: 15, stranded: false },
    ],
    [
      "a new node in a full cluster starts empty: it takes nothing from the others",
      { held: 0, others: [peer(15), peer(15)], unowned: 0 },
      { claim: 0, fairShare: 10, stranded: false },
    ],
    [
      "a node above its share keeps what it holds and claims nothing more",
      { held: 20, others: [peer(5), peer(0)], unowned: 5 },
      { claim: 0, fairShare: 10, stranded: true },
    ],
    [
      "a node below its share claims only what is unowned",
      { held: 0, others: [peer(28)], unowned: 2 },
      { claim: 2, fairShare: 15, stranded: false },
    ],
    [
      "a peer with a small maximum leaves more to this node",
      { held: 0, others: [peer(0, 5)], unowned: 30 },
      { claim: 25, fairShare: 25, stranded: false },
    ],
    [
      "phones unowned while at the share: wait before claiming past it",
      { held: 15, others: [peer(10)], unowned: 5, strandedTicks: STRANDED_PATIENCE_TICKS - 1 },
      { claim: 0, fairShare: 15, stranded: true },
    ],
    [
      "phones still unowned after the patience: claim them, up to the maximum",
      { held: 15, maxPhones: 18, others: [peer(10)], unowned: 5, strandedTicks: STRANDED_PATIENCE_TICKS },
      { claim: 3, fairShare: 15, stranded: true },
    ],
    ["a node at its maximum is never stranded", { held: 12, maxPhones: 12, unowned: 5, strandedTicks: 9 }, { claim: 0, fairShare: 12, stranded: false }],
  ]
  test.each(cases)("%s", (_name, input, plan) => {
    expect(planClaims({ ...base, ...input })).toEqual(plan)
  })
})

describe("expiryClaimAtMs: a claim between ticks when a silent peer's leases run out first", () => {
  // This node ticked at 100 s; its next tick is at 105 s. Leases run 15 s, the margin is 250 ms.
  const at = (heartbeatAtMs: number, phones = 10, stopping = false) => ({ heartbeatAtMs, phones, stopping })
  const cases: [string, ReturnType<typeof at>[], number | null][] = [
    ["peers that heartbeat on time: none (their leases run past the next tick)", [at(99_000), at(96_000)], null],
    ["a peer silent since 88 s: just after its leases end at 103 s", [at(99_000), at(88_000)], 103_250],
    ["two silent peers: the earlier end", [at(89_000), at(87_500)], 102_750],
    ["a silent peer whose leases end at the next tick: that tick claims them", [at(90_000)], null],
    ["a silent peer that holds nothing: none", [at(88_000, 0)], null],
    ["a peer that stopped released its phones: none", [at(88_000, 10, true)], null],
    ["no peers: none", [], null],
    ["a silent peer still holding a lease past its moment (claimed after its heartbeat): left to the next tick", [at(84_000, 1)], null],
  ]
  test.each(cases)("%s", (_name, peers, atMs) => {
    expect(expiryClaimAtMs(peers, 15_000, 250, { nowMs: 100_000, nextTickAtMs: 105_000 })).toBe(atMs)
  })
})
