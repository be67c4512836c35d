import { setDefaultTimeout } from "bun:test"
import { describeActions } from "./actions-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Reactions, edits, revokes and read receipts (see actions-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeActions("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
