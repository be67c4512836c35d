import { setDefaultTimeout } from "bun:test"
import { describeContacts } from "./contacts-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Blocks and profiles (see contacts-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeContacts("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
