import { SETTINGS } from "../config"
import { UsageError } from "./args"
import { COMMANDS, DATA_OPTION, findCommand, usageLines, type CommandSpec, type OptionHelp, type SubcommandSpec } from "./commands"
import type { CliIo } from "./io"

/** What each server setting's value looks like and does, for `wagate serve --help`. */
const SETTING_HELP: Record<string, { value: string; text: string }> = {
  port: { value: "N", text: "port to listen on, 0–65535; 0 picks a free port (default 3000)" },
  host: { value: "ADDR", text: "address to bind, e.g. 127.0.0.1 (default 0.0.0.0)" },
  data: { value: "DIR", text: "the data directory (default ./data)" },
  "log-level": { value: "LEVEL", text: "debug, info, warn or error (default info)" },
  "admin-token": { value: "TOKEN", text: "the admin token, at least 16 characters; none is generated when set" },
  "rate-limit-per-minute": { value: "N", text: "requests per minute per key unless the account overrides it (default 100)" },
  "sandbox-delivered-ms": { value: "MS", text: "when a sandbox message becomes delivered, after the send (default 1000)" },
  "sandbox-read-ms": { value: "MS", text: "when a sandbox message becomes read, after the send (default 3000)" },
  "outbound-allow-cidrs": { value: "CIDR,…", text: "non-public networks that media URLs may point to (default none)" },
  "webhook-retry-offsets-ms": { value: "MS,…", text: "webhook retries, in ms after the first attempt (default 60000,300000,900000)" },
  "webhook-timeout-ms": { value: "MS", text: "deadline of one webhook attempt (default 15000)" },
  "webhook-retention-days": { value: "DAYS", text: "days webhook events and their delivery log are kept; 0 keeps them (default 30)" },
  "send-interval-ms": { value: "MS", text: "pause between two live sends of one phone, ±30 % (default 1000)" },
  "send-timeout-ms": { value: "MS", text: "how long live sends wait for a disconnected phone (default 600000)" },
  "checks-per-phone-per-hour": { value: "N", text: "numbers each phone may check per hour with POST /v1/contacts/check (default 600)" },
  "media-memory-mb": { value: "MIB", text: "memory all live sends' media may hold at once while handed to WhatsApp (default 64)" },
  "media-cache-mb": { value: "MIB", text: "disk inbound media downloaded from WhatsApp may use, least recently used out first (default 1024)" },
  "wa-ws-url": { value: "URL", text: "the WhatsApp Web socket (default wss://web.whatsapp.com/ws/chat)" },
  "wa-connect-timeout-ms": { value: "MS", text: "how long opening the WhatsApp connection may take (default 15000)" },
  "wa-version": { value: "auto|X.Y.Z", text: "the WhatsApp Web version to announce; auto looks it up (default auto)" },
  "metrics-public": { value: "1|0", text: "serve /metrics without the admin token (default 0)" },
  "trusted-proxies": { value: "CIDR,…", text: "proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (default none)" },
}

/** The options of `serve`: one per server setting, each with its environment variable. */
function settingOptions(): OptionHelp[] {
  return SETTINGS.map((s) => {
    const help = SETTING_HELP[s.flag]
    return { flag: `--${s.flag} ${help?.value ?? "VALUE"}`, text: help ? `${help.text} [${s.env}]` : `[${s.env}]` }
  })
}

function optionBlock(options: readonly OptionHelp[]): string {
  if (options.length === 0) return ""
  const width = Math.max(...options.map((o) => o.flag.length))
  return `\nOptions:\n${options.map((o) => `  ${o.flag.padEnd(width)}  ${o.text}`).join("\n")}\n`
}

function commandOptions(command: CommandSpec, own: readonly OptionHelp[]): OptionHelp[] {
  if (command.takesSettings) return settingOptions()
  return command.usesDataDir ? [...own, DATA_OPTION] : [...own]
}

/** `wagate help`: the usage of every command. */
export function overview(): string {
  const lines = COMMANDS.flatMap(usageLines)
  return `wagate: a self-hosted WhatsApp HTTP API

Usage:
${lines.map((l) => `  ${l}`).join("\n")}

With no command, wagate serves. Every command but help and version takes --data DIR (or WAGATE_DATA_DIR, default ./data).
Run \`wagate COMMAND --help\` for a command's options.
`
}

/** `wagate COMMAND --help`. */
export function commandHelp(command: CommandSpec): string {
  const subs = command.subcommands
  const usage = usageLines(command).map((l) => `  ${l}`).join("\n")
  let text = `${command.summary}\n\nUsage:\n${usage}\n`
  if (subs) {
    const width = Math.max(...subs.map((s) => s.name.length))
    text += `\nCommands:\n${subs.map((s) => `  ${s.name.padEnd(width)}  ${s.summary}`).join("\n")}\n`
  }
  text += optionBlock(commandOptions(command, command.options ?? []))
  if (subs) text += `\nRun \`wagate ${command.name} COMMAND --help\` for a command's options.\n`
  return text
}

/** `wagate COMMAND SUBCOMMAND --help`. */
export function subcommandHelp(command: CommandSpec, sub: SubcommandSpec): string {
  return `${sub.summary}\n\nUsage:\n  ${sub.usage}\n${optionBlock(commandOptions(command, sub.options))}`
}

/**
 * The help that `words` (the command line without its options) asks for: the overview, a
 * command's or a subcommand's. A subcommand is recognised wherever it stands among the words,
 * so `wagate phones pair +14155550123 --help` shows the help of `phones pair`.
 */
export function helpFor(words: readonly string[]): string {
  const [name, ...rest] = words
  if (name === undefined) return overview()
  const command = findCommand(name)
  if (!command) throw new UsageError(`Unknown command "${name}"`)
  const sub = command.subcommands?.find((s) => rest.includes(s.name))
  return sub ? subcommandHelp(command, sub) : commandHelp(command)
}

/** `wagate help [COMMAND [SUBCOMMAND]]` */
export function helpCommand(argv: string[], io: CliIo): number {
  io.stdout(helpFor(argv.filter((a) => !a.startsWith("-"))))
  return 0
}
