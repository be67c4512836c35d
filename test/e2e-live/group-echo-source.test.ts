import { setDefaultTimeout } from "bun:test"
import { describeGroupEcho } from "./group-echo-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* The group events of the phone's own changes (see group-echo-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeGroupEcho("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
