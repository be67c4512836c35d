import { expect, test } from "bun:test"
import { expectedFailureMessage } from "../../src/cli/failures"
import { NodeIdInUseError } from "../../src/store/leases"

test("a node id another running node holds is one sentence for the operator, naming the id and what to do", () => {
  const message = expectedFailureMessage(new NodeIdInUseError("wagate-2", 3_200, 15_000))
  expect(message).toBe(
    'Another wagate node is running with WAGATE_NODE_ID "wagate-2" (its last heartbeat was 3 s ago): give each node its own WAGATE_NODE_ID, or, if that node is gone, start this one again in 12 s',
  )
})

test("a bug is not dressed up as an expected failure", () => {
  expect(expectedFailureMessage(new Error("boom"))).toBeNull()
})
