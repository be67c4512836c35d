import { setDefaultTimeout } from "bun:test"
import { describeEncryptedEdits } from "./encrypted-edits-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Encrypted edits (see encrypted-edits-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeEncryptedEdits("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
