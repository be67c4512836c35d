import { setDefaultTimeout } from "bun:test"
import { BUILD_TIMEOUT_MS, ensureBinary } from "../helpers/binary"
import { describeRetryReceipts } from "./retry-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Retry receipts (see retry-scenario.ts) over the TLS front, against the compiled executable, built if stale. */
describeRetryReceipts("over TLS, as the compiled executable", { transport: "tls", prepare: async () => [await ensureBinary()], prepareTimeoutMs: BUILD_TIMEOUT_MS })
