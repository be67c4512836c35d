import { BUILD_TIMEOUT_MS, ensureBinary } from "../helpers/binary"
import { dashboardBrowserSuite } from "./browser-suite"

dashboardBrowserSuite("dashboard in a browser, the compiled executable", async () => [await ensureBinary()], BUILD_TIMEOUT_MS)
