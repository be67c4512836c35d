import { setDefaultTimeout } from "bun:test"
import { describeCalls } from "./calls-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Incoming calls, reject by API and the call policy (see calls-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeCalls("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
