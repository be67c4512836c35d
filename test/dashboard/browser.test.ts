import { dashboardBrowserSuite } from "./browser-suite"

dashboardBrowserSuite("dashboard in a browser, wagate from source", async () => undefined)
