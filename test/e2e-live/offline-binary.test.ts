import { setDefaultTimeout } from "bun:test"
import { BUILD_TIMEOUT_MS, ensureBinary } from "../helpers/binary"
import { describeLateWhatsApp } from "./offline-scenario"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* The offline burst, two-device contacts, error 463 and LID senders (see offline-scenario.ts) over the TLS front, against the compiled executable, built if stale. */
describeLateWhatsApp("over TLS, as the compiled executable", { prepare: async () => [await ensureBinary()], prepareTimeoutMs: BUILD_TIMEOUT_MS })
