import { setDefaultTimeout } from "bun:test"
import { describeLateWhatsApp } from "./offline-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* The offline burst, two-device contacts, error 463 and LID senders (see offline-scenario.ts) over the TLS front, against `bun src/main.ts serve`. */
describeLateWhatsApp("over TLS, from source", { prepare: async () => undefined, prepareTimeoutMs: 0 })
