import { expect, test } from "bun:test"
import { LEASE_DEFAULTS } from "../../src/domain/lease-timings"
import { nodeSessionBounds } from "../../src/domain/session-bounds"

test("with the default lease timings a node's sessions are bounded at 7.5 s per statement, 5 s idle in a transaction and 2.5 s per lock wait", () => {
  expect(nodeSessionBounds(LEASE_DEFAULTS)).toEqual({ statementTimeoutMs: 7_500, idleInTransactionTimeoutMs: 5_000, lockTimeoutMs: 2_500 })
})

test("for any lease of at least three renewals, a paused node's locks are gone by the time its leases run out, or one renewal interval after when it paused waiting on a lock", () => {
  for (const renewEveryMs of [250, 1_000, 3_000, 5_000, 20_000]) {
    for (const renewals of [3, 4, 6, 10]) {
      const leaseMs = renewEveryMs * renewals
      const bounds = nodeSessionBounds({ leaseMs, renewEveryMs })
      // A pause begins at most one interval after the last renewal; the leases end a lease after it.
      expect(renewEveryMs + bounds.idleInTransactionTimeoutMs).toBeLessThanOrEqual(leaseMs)
      expect(renewEveryMs + bounds.lockTimeoutMs + bounds.idleInTransactionTimeoutMs).toBeLessThanOrEqual(leaseMs + renewEveryMs)
      expect(bounds.lockTimeoutMs).toBeLessThan(bounds.statementTimeoutMs)
      expect(bounds.idleInTransactionTimeoutMs).toBeGreaterThan(0)
    }
  }
})
