import { setDefaultTimeout } from "bun:test"
import { describeEcho } from "./echo-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Messages the phone sends itself (see echo-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeEcho("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
