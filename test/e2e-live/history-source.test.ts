import { setDefaultTimeout } from "bun:test"
import { describeHistory } from "./history-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* History on pairing (see history-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeHistory("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
