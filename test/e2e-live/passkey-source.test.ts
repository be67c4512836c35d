import { setDefaultTimeout } from "bun:test"
import { describePasskeyGate } from "./passkey-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Passkey-gated linking (see passkey-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describePasskeyGate("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
