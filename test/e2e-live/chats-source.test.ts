import { setDefaultTimeout } from "bun:test"
import { describeChats } from "./chats-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Chats (see chats-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeChats("from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
