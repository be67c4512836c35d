import { BUILD_TIMEOUT_MS, ensureBinary } from "../helpers/binary"
import { describeWssTransport } from "./wss-transport"

/* The transport tests (see wss-transport.ts) against the compiled executable, built if stale. */
describeWssTransport("as the compiled executable", async () => [await ensureBinary()], BUILD_TIMEOUT_MS)
