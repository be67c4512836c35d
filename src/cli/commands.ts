import { UsageError } from "./args"
import type { CliIo } from "./io"

/*
 * The table of every command the CLI knows: its usage, its options and how to load it. Help is
 * rendered from this table, and each command's module is imported only when that command runs,
 * so `wagate version` and `wagate help` never load the server (Elysia, the store, the domain).
 * This module must stay light: it imports nothing that pulls those in.
 */

/** Runs one command with the arguments after its name; returns the exit code. */
export type CommandRun = (argv: string[], io: CliIo, stopSignal: Promise<string>) => Promise<number> | number

/** One option as help shows it: `--account ACCOUNT_ID` and what it does. */
export interface OptionHelp {
  flag: string
  text: string
}

export interface SubcommandSpec {
  name: string
  /** The usage line(s), each starting with `wagate`. */
  usage: string
  summary: string
  options: readonly OptionHelp[]
}

export interface CommandSpec {
  name: string
  summary: string
  /** Usage of a command without subcommands. */
  usage?: string
  options?: readonly OptionHelp[]
  subcommands?: readonly SubcommandSpec[]
  /** False for commands that never open the data directory (help, version). */
  usesDataDir: boolean
  /** Takes every server setting as a flag (see SETTINGS in src/config.ts); help lists them. */
  takesSettings?: boolean
  /** Imports the command's module; called only when the command runs. */
  load(): Promise<CommandRun>
}

export const DATA_OPTION: OptionHelp = { flag: "--data DIR", text: "the data directory (WAGATE_DATA_DIR, default ./data)" }
/**
 * What every command that opens the data directory also takes, because it opens the database
 * with the server's settings: where the database is and how much its log says.
 */
export const DATA_DIR_OPTIONS: readonly OptionHelp[] = [
  DATA_OPTION,
  { flag: "--database-url URL", text: "the PostgreSQL database shared by the nodes (WAGATE_DATABASE_URL, default none: SQLite in the data directory)" },
  { flag: "--log-level LEVEL", text: "debug, info, warn or error (WAGATE_LOG_LEVEL, default info)" },
]
const ACCOUNT_OPTION: OptionHelp = { flag: "--account ACCOUNT_ID", text: "the account to act on; may be left out when there is only one" }
const JSON_OPTION: OptionHelp = { flag: "--json", text: "print JSON with the admin API's field names instead of a table" }
const ENV_OPTION: OptionHelp = { flag: "--env test|live", text: "the environment (default test)" }
const EVENTS_OPTION: OptionHelp = { flag: "--events '*'|a,b,…", text: "the events to send: '*' for every event, or a comma-separated list" }

/**
 * The options a command (or one of its subcommands, whose own options are `own`) takes besides
 * the server's settings: its own, and the data directory's when it opens one. Help lists them,
 * and the CLI refuses any other (src/cli/options.ts).
 */
export function ownAndDataDirOptions(command: CommandSpec, own: readonly OptionHelp[]): OptionHelp[] {
  return command.usesDataDir ? [...own, ...DATA_DIR_OPTIONS] : [...own]
}

/** The `list` of an account's keys, phones or webhooks: one usage form and the same options for each. */
function listOfAccount(command: string, summary: string): SubcommandSpec {
  return { name: "list", usage: `wagate ${command} [list] [--account ACCOUNT_ID] [--json]`, summary, options: [ACCOUNT_OPTION, JSON_OPTION] }
}

const ACCOUNTS: readonly SubcommandSpec[] = [
  { name: "list", usage: "wagate accounts [list] [--json]", summary: "List the accounts with their keys, phones and messages.", options: [JSON_OPTION] },
  {
    name: "create",
    usage: "wagate accounts create --name NAME --email EMAIL",
    summary: "Create an account.",
    options: [
      { flag: "--name NAME", text: "the account's name (required)" },
      { flag: "--email EMAIL", text: "the account's e-mail address (required)" },
    ],
  },
  {
    name: "update",
    usage: "wagate accounts update ACCOUNT_ID [--name NAME] [--email EMAIL] [--subscription active|inactive] [--rate-limit N|default]",
    summary: "Change an account; an inactive subscription refuses its API keys.",
    options: [
      { flag: "--name NAME", text: "a new name" },
      { flag: "--email EMAIL", text: "a new e-mail address" },
      { flag: "--subscription active|inactive", text: "activate or deactivate the account" },
      { flag: "--rate-limit N|default", text: "requests per minute per key, or `default` for the server's setting" },
    ],
  },
]

const KEYS: readonly SubcommandSpec[] = [
  listOfAccount("keys", "List an account's API keys (prefix…last4, never the key)."),
  {
    name: "create",
    usage: "wagate keys create [--account ACCOUNT_ID] [--env test|live] [--scopes a,b,…] [--name NAME] [--expires ISO_TIME]",
    summary: "Create an API key and print it once.",
    options: [
      ACCOUNT_OPTION,
      ENV_OPTION,
      { flag: "--scopes a,b,…", text: "comma-separated scopes, listed below (default: every canonical scope)" },
      { flag: "--name NAME", text: "a name to recognise the key by" },
      { flag: "--expires ISO_TIME", text: "when the key stops working, e.g. 2027-01-01T00:00:00Z" },
    ],
  },
  { name: "revoke", usage: "wagate keys revoke KEY_ID", summary: "Revoke a key; it is refused from its next request on.", options: [] },
]

const PHONES: readonly SubcommandSpec[] = [
  listOfAccount("phones", "List an account's phones and their connection status."),
  {
    name: "add",
    usage: "wagate phones add +E164 [--account ACCOUNT_ID] [--name DISPLAY_NAME]",
    summary: "Add a sender phone; test keys can send from it at once.",
    options: [ACCOUNT_OPTION, { flag: "--name DISPLAY_NAME", text: "the phone's display name" }],
  },
  { name: "remove", usage: "wagate phones remove PHONE_ID|+E164", summary: "Log the phone out and remove it; its messages are kept.", options: [] },
  {
    name: "pair",
    usage: "wagate phones pair PHONE_ID|+E164 [--code]",
    summary: "Pair a phone with WhatsApp: shows a QR to scan, or a code to type; through the running server when there is one.",
    options: [{ flag: "--code", text: "show a pairing code to type on the phone instead of a QR" }],
  },
  { name: "logout", usage: "wagate phones logout PHONE_ID|+E164", summary: "Unlink the phone's device and wipe its credentials.", options: [] },
  {
    name: "disconnect",
    usage: "wagate phones disconnect PHONE_ID|+E164",
    summary: "Close the phone's connection, or stop its pairing; a paired phone stays paired.",
    options: [],
  },
  {
    name: "call-policy",
    usage: 'wagate phones call-policy PHONE_ID|+E164 [--reject on|off] [--reply "TEXT"] [--json]',
    summary: "Show or set what the phone does with incoming calls: reject them, and answer each caller with a text at most once an hour.",
    options: [
      { flag: "--reject on|off", text: "reject every incoming call as it rings, or let calls ring" },
      { flag: '--reply "TEXT"', text: 'the text a rejected caller gets, at most 1024 characters; "" sends none' },
      JSON_OPTION,
    ],
  },
  {
    name: "history",
    usage: "wagate phones history PHONE_ID|+E164 [--sync none|recent|full] [--days N] [--json]",
    summary: "Show or set how much chat history the phone asks WhatsApp for when it links.",
    options: [
      { flag: "--sync none|recent|full", text: "no history, what WhatsApp Web gets (the default), or WhatsApp's full sync" },
      { flag: "--days N", text: "keep messages of the last N days (1 to 3650, default 90)" },
      JSON_OPTION,
    ],
  },
]

const WEBHOOKS: readonly SubcommandSpec[] = [
  listOfAccount("webhooks", "List an account's webhook endpoints (never their secrets)."),
  {
    name: "add",
    usage: "wagate webhooks add --url URL [--account ACCOUNT_ID] [--env test|live] [--events '*'|a,b,…]",
    summary: "Add an endpoint and print its signing secret once.",
    options: [{ flag: "--url URL", text: "where deliveries are POSTed (required)" }, ACCOUNT_OPTION, ENV_OPTION, EVENTS_OPTION],
  },
  {
    name: "update",
    usage: "wagate webhooks update WEBHOOK_ID [--url URL] [--events '*'|a,b,…] [--enable|--disable]",
    summary: "Change an endpoint.",
    options: [
      { flag: "--url URL", text: "a new URL" },
      EVENTS_OPTION,
      { flag: "--enable", text: "resume deliveries" },
      { flag: "--disable", text: "pause deliveries" },
    ],
  },
  { name: "remove", usage: "wagate webhooks remove WEBHOOK_ID", summary: "Remove an endpoint and its delivery log.", options: [] },
  {
    name: "rotate-secret",
    usage: "wagate webhooks rotate-secret WEBHOOK_ID",
    summary: "Print a new signing secret once; the previous one keeps signing beside it for a while.",
    options: [],
  },
  {
    name: "deliveries",
    usage: "wagate webhooks deliveries WEBHOOK_ID [--status pending|succeeded|failed] [--page N] [--limit N] [--json]",
    summary: "Show an endpoint's deliveries, newest first, each with its attempts.",
    options: [
      { flag: "--status pending|succeeded|failed", text: "only deliveries in this state" },
      { flag: "--page N", text: "the page, from 1 (default 1)" },
      { flag: "--limit N", text: "deliveries per page, 1–100 (default 20)" },
      JSON_OPTION,
    ],
  },
  { name: "resend", usage: "wagate webhooks resend DELIVERY_ID", summary: "Queue a new delivery of the same event.", options: [] },
]

/** Every command, in the order help lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  {
    name: "serve",
    summary: "Serve the API. Every setting is a flag and a WAGATE_* variable; the flag wins.",
    usage: "wagate serve [OPTIONS]",
    usesDataDir: true,
    takesSettings: true,
    load: async () => (await import("./serve")).serveCommand,
  },
  { name: "accounts", summary: "Manage accounts.", subcommands: ACCOUNTS, usesDataDir: true, load: async () => (await import("./accounts")).accountsCommand },
  { name: "keys", summary: "Manage API keys.", subcommands: KEYS, usesDataDir: true, load: async () => (await import("./keys")).keysCommand },
  { name: "phones", summary: "Manage sender phones and their WhatsApp pairing.", subcommands: PHONES, usesDataDir: true, load: async () => (await import("./phones")).phonesCommand },
  { name: "webhooks", summary: "Manage webhook endpoints and their deliveries.", subcommands: WEBHOOKS, usesDataDir: true, load: async () => (await import("./webhooks")).webhooksCommand },
  {
    name: "nodes",
    summary: "List the nodes sharing the PostgreSQL database with their state, phones, heartbeat and lease ages. On SQLite there is one node, and it says so.",
    usage: "wagate nodes [--phones] [--json]",
    options: [
      { flag: "--phones", text: "also list the phones each node holds, with the lease's token and age" },
      JSON_OPTION,
    ],
    usesDataDir: true,
    load: async () => (await import("./nodes")).nodesCommand,
  },
  {
    name: "admin-token",
    summary: "Manage the admin token.",
    subcommands: [{ name: "reset", usage: "wagate admin-token reset", summary: "Replace the admin token and print the new one once.", options: [] }],
    usesDataDir: true,
    load: async () => (await import("./misc")).adminTokenCommand,
  },
  {
    name: "backup",
    summary: "Write a consistent copy of the database to FILE, safe beside a running server.",
    usage: "wagate backup FILE",
    options: [],
    usesDataDir: true,
    load: async () => (await import("./misc")).backupCommand,
  },
  {
    name: "migrate",
    summary: "Apply pending migrations to the database (SQLite: serve also does this at start; PostgreSQL: run it once before starting the nodes, safe from several at once).",
    usage: "wagate migrate",
    options: [
      { flag: "--database-wait-ms MS", text: "how long to wait for PostgreSQL to accept connections while it starts (WAGATE_DATABASE_WAIT_MS, default 30000; 0: one try)" },
    ],
    usesDataDir: true,
    load: async () => (await import("./migrate")).migrateCommand,
  },
  {
    name: "export",
    summary:
      "Write every row of this node's SQLite database (credentials, keys, messages, webhooks) to FILE, mode 0600, for `wagate import` to load into PostgreSQL. Reads one snapshot, safe beside a running server; stop the server first for a move.",
    usage: "wagate export --out FILE",
    options: [{ flag: "--out FILE", text: "the file to write (required); it must not exist yet" }],
    usesDataDir: true,
    load: async () => (await import("./export")).exportCommand,
  },
  {
    name: "import",
    summary:
      "Load a file `wagate export` wrote into the PostgreSQL database, in one transaction. The database must be migrated (`wagate migrate`) and empty: import before any node starts on it.",
    usage: "wagate import --in FILE",
    options: [
      { flag: "--in FILE", text: "the export file to load (required)" },
      { flag: "--database-url URL", text: "the PostgreSQL database to load into (WAGATE_DATABASE_URL; required)" },
    ],
    usesDataDir: false,
    load: async () => (await import("./import")).importCommand,
  },
  {
    name: "doctor",
    summary:
      "Check what a live phone needs: DNS, TLS and the clock against WhatsApp's host, the WhatsApp Web version lookup, the server that owns the data directory, and each phone's state, last error, announced version and client expiry (every phone when none is named). Exits 1 when a check fails.",
    usage: "wagate doctor [PHONE_ID|+E164] [--json]",
    options: [
      { flag: "--json", text: "print the checks as JSON: name, status (ok, fail or skip), detail and action" },
      { flag: "--wa-ws-url URL", text: "the WhatsApp socket whose host is checked (WAGATE_WA_WS_URL, default wss://web.whatsapp.com/ws/chat)" },
      { flag: "--wa-version auto|X.Y.Z", text: "the version setting; only auto makes the lookup (WAGATE_WA_VERSION, default auto)" },
      { flag: "--wa-connect-timeout-ms MS", text: "how long the TLS check may take (WAGATE_WA_CONNECT_TIMEOUT_MS, default 15000)" },
    ],
    usesDataDir: true,
    load: async () => (await import("./doctor")).doctorCommand,
  },
  {
    name: "version",
    summary: "Print wagate's version, its database schema version and the Bun version.",
    usage: "wagate version",
    options: [],
    usesDataDir: false,
    load: async () => (await import("./version")).versionCommand,
  },
  {
    name: "help",
    summary: "Print the usage of every command, or of one command.",
    usage: "wagate help [COMMAND [SUBCOMMAND]]",
    options: [],
    usesDataDir: false,
    load: async () => (await import("./help")).helpCommand,
  },
]

/** The command named `name`, if the CLI knows it. */
export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name)
}

/** Every usage line of a command: its own, or one per subcommand. */
export function usageLines(command: CommandSpec): string[] {
  return command.subcommands ? command.subcommands.map((s) => s.usage) : [command.usage ?? `wagate ${command.name}`]
}

/** A command's usage as one text, for a usage error that names a wrong subcommand. */
export function commandUsage(name: string): string {
  const command = findCommand(name)
  return command ? usageLines(command).join("\n") : `wagate ${name}`
}

/**
 * Refuses a subcommand that `command` does not have, with that command's usage, before anything
 * is opened: a mistyped `wagate keys lsit` creates no data directory.
 */
export function requireSubcommand(command: string, subcommand: string): void {
  if (findCommand(command)?.subcommands?.some((s) => s.name === subcommand)) return
  throw new UsageError(`Unknown ${command} command "${subcommand}"\n${commandUsage(command)}`)
}

/** One subcommand's usage line. */
export function subcommandUsage(command: string, subcommand: string): string {
  return findCommand(command)?.subcommands?.find((s) => s.name === subcommand)?.usage ?? `wagate ${command} ${subcommand}`
}
