import { setDefaultTimeout } from "bun:test"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { describeSendKinds } from "./send-kinds-scenario"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Replies, mentions, locations, contact cards and voice notes (send-kinds-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeSendKinds("from source", async () => undefined, 0)
