import { setDefaultTimeout } from "bun:test"
import { describeInboundRicher } from "./inbound-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Inbound media, replies, locations, contacts, reactions, edits and deletions (see inbound-scenario.ts), against `bun src/main.ts serve`. */
describeInboundRicher("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
