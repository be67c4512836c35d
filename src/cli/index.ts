import { ConfigError } from "../config"
import { DataDirError } from "../lib/data-dir"
import { AppError } from "../lib/errors"
import { LockHeldError } from "../lib/lockfile"
import { SchemaTooNewError } from "../store/db"
import { accountsCommand, ACCOUNTS_USAGE } from "./accounts"
import { UsageError } from "./args"
import type { CliIo } from "./io"
import { keysCommand, KEYS_USAGE } from "./keys"
import { adminTokenCommand, backupCommand, migrateCommand, versionCommand } from "./misc"
import { phonesCommand, PHONES_USAGE } from "./phones"
import { serveCommand, SERVE_USAGE } from "./serve"
import { webhooksCommand, WEBHOOKS_USAGE } from "./webhooks"

export const USAGE = `wagate: a self-hosted WhatsApp HTTP API

Usage:
  ${SERVE_USAGE}
  ${ACCOUNTS_USAGE.replaceAll("\n", "\n  ")}
  ${KEYS_USAGE.replaceAll("\n", "\n  ")}
  ${PHONES_USAGE.replaceAll("\n", "\n  ")}
  ${WEBHOOKS_USAGE.replaceAll("\n", "\n  ")}
  wagate admin-token reset
  wagate backup FILE
  wagate migrate
  wagate version

With no command, wagate serves. Every command takes --data DIR (or WAGATE_DATA_DIR, default ./data).
`

/**
 * Runs one command and returns its exit code: 0 success, 1 failure, 2 wrong usage. Expected
 * failures print one clear line; nothing here calls process.exit, so tests run it in-process.
 */
export async function runCli(argv: string[], io: CliIo, stopSignal: Promise<string>): Promise<number> {
  const [command = "serve", ...rest] = argv
  try {
    switch (command) {
      case "serve":
        return await serveCommand(rest, io, stopSignal)
      case "accounts":
        return await accountsCommand(rest, io)
      case "keys":
        return await keysCommand(rest, io)
      case "phones":
        return await phonesCommand(rest, io, stopSignal)
      case "webhooks":
        return await webhooksCommand(rest, io)
      case "admin-token":
        return await adminTokenCommand(rest, io)
      case "backup":
        return await backupCommand(rest, io)
      case "migrate":
        return await migrateCommand(rest, io)
      case "version":
      case "--version":
        return versionCommand(io)
      case "help":
      case "--help":
      case "-h":
        io.stdout(USAGE)
        return 0
      default:
        // `wagate --port 4000` means `wagate serve --port 4000`.
        if (command.startsWith("--")) return await serveCommand(argv, io, stopSignal)
        throw new UsageError(`Unknown command "${command}"`)
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`error: ${err.message}\nRun \`wagate help\` for usage.\n`)
      return 2
    }
    if (err instanceof AppError) {
      io.stderr(`error: ${err.publicMessages.join("; ")}\n`)
      return 1
    }
    if (err instanceof ConfigError || err instanceof LockHeldError || err instanceof SchemaTooNewError || err instanceof DataDirError) {
      io.stderr(`error: ${err.message}\n`)
      return 1
    }
    throw err
  }
}
