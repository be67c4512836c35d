import type { DomainContext } from "../domain/context"
import { getHistorySettings, MAX_HISTORY_DAYS, setHistorySettings } from "../domain/history-settings"
import { escapeControls } from "../lib/outside-text"
import { toIso } from "../lib/time"
import { HISTORY_SYNC_MODES, type HistorySync } from "../lib/vocabulary"
import { UsageError, type ParsedArgs } from "./args"
import { printJson, type CliIo } from "./io"

/*
 * `wagate phones history PHONE [--sync none|recent|full] [--days N] [--json]`: shows a phone's
 * history settings, or sets them (docs/admin.md § "History on pairing"). They are a row in the
 * database, read when the phone links, so the command writes it directly, server running or not.
 */

export async function historySettingsCommand(ctx: DomainContext, args: ParsedArgs, io: CliIo): Promise<number> {
  const ref = args.positionals[1]
  if (!ref) throw new UsageError("phones history needs a PHONE_ID or +E164 number")
  const sync = args.flags.sync
  const days = args.flags.days
  if (sync !== undefined && !(HISTORY_SYNC_MODES as readonly string[]).includes(sync)) {
    throw new UsageError(`--sync takes none, recent or full, not "${escapeControls(sync)}"`)
  }
  if (days !== undefined && (!/^\d{1,4}$/.test(days) || Number(days) < 1 || Number(days) > MAX_HISTORY_DAYS)) {
    throw new UsageError(`--days takes a whole number from 1 to ${MAX_HISTORY_DAYS}, not "${escapeControls(days)}"`)
  }
  const settings =
    sync === undefined && days === undefined
      ? await getHistorySettings(ctx, ref)
      : await setHistorySettings(ctx, ref, { historySync: sync as HistorySync | undefined, historyDays: days === undefined ? undefined : Number(days) })
  if (args.switches.has("json")) {
    printJson(io, { phoneId: settings.phoneId, historySync: settings.historySync, historyDays: settings.historyDays, updatedAt: toIso(settings.updatedAtMs) })
    return 0
  }
  io.stdout(`${settings.phoneId} asks for ${settings.historySync} history when it links, keeping the last ${settings.historyDays} days.\n`)
  return 0
}
