#!/usr/bin/env bun
import { runCli } from "./cli/index"

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
  process.stderr.write(`${JSON.stringify({ level: "error", msg: "unhandled promise rejection", err: String((reason as Error)?.stack ?? reason) })}\n`)
})

const code = await runCli(
  process.argv.slice(2),
  {
    env: process.env,
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    isTty: Boolean(process.stdout.isTTY),
  },
  stopSignal,
)
process.exit(code)
