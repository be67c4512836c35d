import { setDefaultTimeout } from "bun:test"
import { BUILD_TIMEOUT_MS, ensureBinary } from "../helpers/binary"
import { describeInboundRicher } from "./inbound-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* The same cases (see inbound-scenario.ts) against the compiled executable, built if stale. */
describeInboundRicher("as the compiled executable", { prepare: async () => [await ensureBinary()], prepareTimeoutMs: BUILD_TIMEOUT_MS })
