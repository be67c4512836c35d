import { setDefaultTimeout } from "bun:test"
import { describeWssTransport } from "./wss-transport"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* The transport tests (see wss-transport.ts) against `bun src/main.ts serve`. */
describeWssTransport("from source", async () => undefined, 0)
