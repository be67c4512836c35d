import { setDefaultTimeout } from "bun:test"
import { BUILD_TIMEOUT_MS, ensureBinary } from "../helpers/binary"
import { describeWssTransport } from "./wss-transport"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* The transport tests (see wss-transport.ts) against the compiled executable, built if stale. */
describeWssTransport("as the compiled executable", async () => [await ensureBinary()], BUILD_TIMEOUT_MS)
