import type { SocketConfig } from "@whiskeysockets/baileys"

/** The pino-compatible logger interface Baileys takes (`ILogger`, not exported from its root). */
export type BaileysLogger = SocketConfig["logger"]

/**
 * A logger that drops everything. Baileys logs stream errors and failed decryptions at error
 * level, which the simulator provokes on purpose, so tests would otherwise print noise on success.
 */
export const silentLogger: BaileysLogger = {
  level: "silent",
  child: () => silentLogger,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
}
