import { setDefaultTimeout } from "bun:test"
import { describeLabels } from "./labels-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Labels made through the API (see labels-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeLabels("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
