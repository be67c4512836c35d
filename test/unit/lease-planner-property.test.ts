import { expect, setDefaultTimeout, test } from "bun:test"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { simulate, STRANDED_BOUND } from "./lease-cluster-sim"

/*
 * The planner's property test (issue 28): thousands of random clusters (caps, deaths, pauses,
 * graceful stops, joins, unpaired phones mixed in, phones paired and logged out as they run),
 * each run over sixty renewals with the real planner and a model of the claim query
 * (lease-cluster-sim.ts). Seeds are fixed and printed with any failure, so a failure replays
 * with `simulate(seed, "needed")`.
 */

// About 3 s of CPU for each test on a quiet machine; more on a loaded one, hence the slow timeout.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const CLUSTERS = 2_000
const FIRST_SEED = 28_000

test(`in ${CLUSTERS} random clusters no live phone stays unowned past ${STRANDED_BOUND} steps while a running node has room, no node passes its cap, and no phone is held twice`, () => {
  const failures: string[] = []
  for (let seed = FIRST_SEED; seed < FIRST_SEED + CLUSTERS && failures.length < 3; seed++) {
    const problem = simulate(seed, "needed")
    if (problem) failures.push(`seed ${seed}: ${problem}`)
  }
  expect(failures).toEqual([])
})

test("the same clusters with the claim of before issue 28 (every phone leased, paired or not) strand a live phone: the property catches it", () => {
  let stranding: string | null = null
  for (let seed = FIRST_SEED; seed < FIRST_SEED + CLUSTERS && !stranding; seed++) {
    const problem = simulate(seed, "every")
    if (problem?.includes("unowned")) stranding = `seed ${seed}: ${problem}`
  }
  expect(stranding).toContain("while a running node has room")
})
