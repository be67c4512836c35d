import { setDefaultTimeout } from "bun:test"
import { describeReceivingStalls } from "./stall-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Receiving stalls (see stall-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeReceivingStalls("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
