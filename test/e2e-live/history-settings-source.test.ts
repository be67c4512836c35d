import { setDefaultTimeout } from "bun:test"
import { describeHistorySettings } from "./history-settings-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* History settings (see history-settings-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeHistorySettings("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
