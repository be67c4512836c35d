import { setDefaultTimeout } from "bun:test"
import { describeHiddenNumbers } from "./lid-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Hidden numbers (see lid-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeHiddenNumbers("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
