import { setDefaultTimeout } from "bun:test"
import { describeGroups } from "./groups-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Running groups (see groups-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeGroups("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
