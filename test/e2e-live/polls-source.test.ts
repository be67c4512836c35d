import { setDefaultTimeout } from "bun:test"
import { describePolls } from "./polls-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Polls (see polls-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describePolls("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
