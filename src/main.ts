#!/usr/bin/env bun
import { runCli } from "./cli/index"
import { invocationOf } from "./cli/invocation"
import { writeAll } from "./cli/output"

/*
 * The process entry point: the only place that reads process.argv/env, installs signal
 * handlers and exits. Everything else receives what it needs.
 */
const stopSignal = new Promise<string>((resolve) => {
  process.once("SIGTERM", () => resolve("SIGTERM"))
  process.once("SIGINT", () => resolve("SIGINT"))
})

// A stray rejection deep inside a dependency (a WhatsApp socket callback, say) must not take
// the whole server down with every other phone and request: report it and keep serving.
process.on("unhandledRejection", (reason) => {
  writeAll(2, `${JSON.stringify({ level: "error", msg: "unhandled promise rejection", err: String((reason as Error)?.stack ?? reason) })}\n`)
})

const code = await runCli(
  process.argv.slice(2),
  {
    env: process.env,
    stdout: (text) => writeAll(1, text),
    stderr: (text) => writeAll(2, text),
    // A getter, and isatty rather than process.stdout.isTTY: the stream would load Node's tty
    // and stream modules (tens of milliseconds of every start) to answer a yes or no.
    get isTty() {
      return (require("node:tty") as typeof import("node:tty")).isatty(1)
    },
    invocation: invocationOf({ argv0: process.argv0, scriptPath: process.argv[1], cwd: process.cwd() }),
    bunVersion: Bun.version,
  },
  stopSignal,
)
process.exit(code)
