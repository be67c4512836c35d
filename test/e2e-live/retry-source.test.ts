import { setDefaultTimeout } from "bun:test"
import { describeRetryReceipts } from "./retry-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Retry receipts (see retry-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeRetryReceipts("over TLS, from source", { transport: "tls", prepare: async () => undefined, prepareTimeoutMs: 0 })
