import { setDefaultTimeout } from "bun:test"
import { describePictures } from "./pictures-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* The phone's own profile and picture (see pictures-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describePictures("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
