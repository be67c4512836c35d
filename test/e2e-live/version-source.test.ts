import { setDefaultTimeout } from "bun:test"
import { describeVersions } from "./version-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Retired versions and client expiration (see version-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeVersions("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
