import { setDefaultTimeout } from "bun:test"
import { describeGroupEvents } from "./group-events-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Group events (see group-events-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeGroupEvents("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
