import { setDefaultTimeout } from "bun:test"
import { BUILD_TIMEOUT_MS, ensureBinary } from "../helpers/binary"
import { describeLabels } from "./labels-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Labels made through the API (see labels-scenario.ts) over the TLS front, against the compiled executable, built if stale. */
describeLabels("as the compiled executable", { prepare: async () => [await ensureBinary()], prepareTimeoutMs: BUILD_TIMEOUT_MS })
