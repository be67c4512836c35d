import { setDefaultTimeout } from "bun:test"
import { describeRetryReceipts } from "../e2e-live/retry-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * Retry receipts (see test/e2e-live/retry-scenario.ts) on the plain `ws://` path: wagate from
 * source connected straight to the simulator. Retries from the number, from the LID and after a
 * restart, for text and media; the contact decrypts each resend.
 */
describeRetryReceipts("over ws, from source", { transport: "ws", prepare: async () => undefined, prepareTimeoutMs: 0 })
