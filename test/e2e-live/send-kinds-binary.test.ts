import { setDefaultTimeout } from "bun:test"
import { BUILD_TIMEOUT_MS, ensureBinary } from "../helpers/binary"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { describeSendKinds } from "./send-kinds-scenario"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* Replies, mentions, locations, contact cards and voice notes (send-kinds-scenario.ts) over the TLS front, against the compiled executable, built if stale. */
describeSendKinds("as the compiled executable", async () => [await ensureBinary()], BUILD_TIMEOUT_MS)
