import { setDefaultTimeout } from "bun:test"
import { describeAppState } from "./app-state-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Changes made on the phone (see app-state-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeAppState("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
