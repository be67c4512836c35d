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
