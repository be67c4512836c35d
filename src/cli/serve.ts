import { createEventLoopLagMonitor } from "../lib/event-loop-lag"
import { join } from "node:path"
import { createApp } from "../app"
import { loadConfig } from "../config"
import { createServices, type Services } from "../deps"
import { bootstrap, type BootstrapResult } from "../domain/bootstrap"
import { systemClock } from "../lib/clock"
import { prepareDataDir } from "../lib/data-dir"
import { clearMediaTemp } from "../lib/media-temp"
import { redactDatabaseUrl } from "../lib/database-url"
import { acquireLock, LOCK_FILE, lockedDatabase } from "../lib/lockfile"
import { randomBase62 } from "../lib/secrets"
import { toIso } from "../lib/time"
import { DATABASE_FILE } from "../store/sqlite/db"
import { BUN_ENGINES, VERSION } from "../version"
import { parseArgs } from "./args"
import { bunTooOld } from "./bun-version"
import { cliLogger, type CliIo } from "./io"
import { renderQr } from "./pair"
import { suggester, type Suggest } from "./suggest"

/** Longest a shutdown waits for in-flight requests (docs/decisions.md § "Configuration and operations"). */
export const SHUTDOWN_GRACE_MS = 6_000
/**
 * Bun's own body cap, set out of reach on purpose. Bun answers a body over its cap with a bare
 * 413 before our handler runs, so any finite cap leaves some sizes without the error envelope.
 * Our own cap (MAX_BODY_BYTES, 64 KiB) is enforced where bodies are read, from Content-Length
 * before reading and byte by byte for chunked bodies; a body no route reads is never buffered.
 */
export const TRANSPORT_MAX_BODY_BYTES = Number.MAX_SAFE_INTEGER

/**
 * `wagate serve`: takes the data directory's lock, migrates, runs first-run setup, serves until
 * `stopSignal` resolves, then shuts down gracefully: stop accepting, answer in-flight requests,
 * write buffered counters, checkpoint SQLite, release the lock.
 */
export async function serveCommand(argv: string[], io: CliIo, stopSignal: Promise<string>): Promise<number> {
  const tooOld = bunTooOld(BUN_ENGINES, io.bunVersion ?? Bun.version)
  if (tooOld !== null) {
    io.stderr(`error: ${tooOld}\n`)
    return 1
  }
  const args = parseArgs(argv, new Set())
  const config = loadConfig(io.env, args.flags)
  const clock = io.clock ?? systemClock()
  const logger = cliLogger(io, config, clock)
  prepareDataDir(config.dataDir, logger)
  const localToken = `loc_${randomBase62(32)}`
  const lock = acquireLock(join(config.dataDir, LOCK_FILE), { pid: process.pid, port: null, startedAt: toIso(clock.nowMs()), localToken, database: lockedDatabase(config.databaseUrl) })
  // Only the lock holder sends, so no download is in use yet: what is there, a crash left.
  const leftover = clearMediaTemp(config.dataDir)
  if (leftover > 0) logger.info("removed media files an earlier run left behind", { files: leftover })
  const lagMonitor = createEventLoopLagMonitor(clock)
  const services = await createServices(config, { clock, logger, databasePath: join(config.dataDir, DATABASE_FILE), checkpointOnStop: true, lagMonitor })
  services.localAdminToken = localToken
  let server: ReturnType<typeof Bun.serve> | undefined
  try {
    const created = await bootstrap(services.ctx)
    if (io.isTty) printPairingPrompts(io, services)
    await services.start()
    const app = createApp(services)
    app.listen({ port: config.port, hostname: config.host, maxRequestBodySize: TRANSPORT_MAX_BODY_BYTES })
    server = app.server ?? undefined
    const port = server?.port ?? config.port
    lock.update(port, config.host)
    const shownHost = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host
    io.stdout(`wagate ${VERSION} listening on http://${shownHost}:${port} (data: ${config.dataDir})\n`)
    printFirstRun(io, created, `http://${shownHost}:${port}`, suggester(io, config.dataDir, config.databaseUrl), config.databaseUrl)
    logger.info("server started", { port, host: config.host, dataDir: config.dataDir, version: VERSION })

    const signal = await stopSignal
    logger.info("shutting down", { signal })
    const forced = clock.setTimer(SHUTDOWN_GRACE_MS, () => void server?.stop(true))
    // Event streams never finish by themselves: ended now, their clients resume on another node
    // at once (docs/webhooks.md § "Streams on several nodes") instead of after the grace.
    services.eventStreams.closeAll()
    await server?.stop(false)
    forced.cancel()
    return 0
  } finally {
    await services.stop()
    lock.release()
  }
}

/** On a terminal, shows each new pairing QR or code as it appears (docs/decisions.md § "Operator surface"). */
function printPairingPrompts(io: CliIo, services: Services): void {
  const shown = new Map<string, string>()
  services.sessions.subscribeAll((phone, state, relayed) => {
    // With several nodes, the prompt is printed by the node with the phone's socket only.
    if (relayed) return
    const prompt = state.qr ?? state.pairingCode
    if (!prompt || shown.get(phone.id) === prompt) return
    shown.set(phone.id, prompt)
    if (state.qr) {
      void renderQr(state.qr).then((qr) =>
        io.stdout(`\nPairing ${phone.phoneNumber}: scan with WhatsApp › Settings › Linked devices › Link a device\n\n${qr}\n`),
      )
    } else {
      io.stdout(`\nPairing ${phone.phoneNumber}: on the phone choose "Link with phone number instead" and type ${state.pairingCode}\n`)
    }
  })
}

function printFirstRun(io: CliIo, created: BootstrapResult, baseUrl: string, suggest: Suggest, databaseUrl: string | null): void {
  if (!created.sandboxKey && !created.adminToken) return
  const lines: string[] = ["", "First run: wagate set itself up. These secrets are shown only now; store them."]
  if (created.account) lines.push(`  Account:      ${created.account.id} (${created.account.name})`)
  if (created.sandboxKey) lines.push(`  Sandbox key:  ${created.sandboxKey}`)
  if (created.adminToken) lines.push(`  Admin token:  ${created.adminToken}`)
  if (created.sandboxKey) {
    lines.push(
      "",
      "Next step: add a phone (test keys can send from it at once, no pairing needed):",
      `  ${suggest("phones add +14155550123 --name 'Support'")}`,
      ...(databaseUrl === null ? [] : [`  (in a shell where WAGATE_DATABASE_URL holds this database's URL: ${redactDatabaseUrl(databaseUrl)})`]),
      "then send a sandbox message:",
      `  curl -X POST ${baseUrl}/v1/messages/send -H 'Authorization: Bearer ${created.sandboxKey}' \\`,
      `    -H 'Content-Type: application/json' -d '{"fromPhoneId":"+14155550123","to":"+14155550199","content":"Hello"}'`,
      `API reference: ${baseUrl}/swagger`,
    )
  }
  io.stdout(lines.join("\n") + "\n\n")
}
