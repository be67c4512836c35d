import type { HistorySync } from "../lib/vocabulary"
import type { HistorySettings } from "../store/history-settings"
import type { DomainContext } from "./context"
import { findPhoneAnywhere } from "./phones"

/*
 * How much history a phone asks WhatsApp for when it is paired (docs/admin.md § "History on
 * pairing"): `recent` (what WhatsApp Web gets) unless set, messages of the last 90 days stored.
 * Read when the phone pairs; a change applies to the next pairing.
 */

export const DEFAULT_HISTORY_SYNC: HistorySync = "recent"
export const DEFAULT_HISTORY_DAYS = 90
export const MAX_HISTORY_DAYS = 3650

/** A phone's history settings, the defaults when it never set them; 404 for an unknown phone. */
export async function getHistorySettings(ctx: DomainContext, phoneRef: string): Promise<HistorySettings> {
  const phone = await findPhoneAnywhere(ctx, phoneRef)
  return (await historySettingsOf(ctx, phone.id)) ?? { phoneId: phone.id, historySync: DEFAULT_HISTORY_SYNC, historyDays: DEFAULT_HISTORY_DAYS, updatedAtMs: phone.createdAtMs }
}

/** The stored settings of a phone by its id, or null (the adapter's view at pairing). */
export async function historySettingsOf(ctx: Pick<DomainContext, "store">, phoneId: string): Promise<HistorySettings | null> {
  return ctx.store.findHistorySettings(phoneId)
}

/** Sets a phone's history settings; a field left out keeps what the phone had (the HTTP layer has checked the ranges). */
export async function setHistorySettings(ctx: DomainContext, phoneRef: string, input: { historySync?: HistorySync; historyDays?: number }): Promise<HistorySettings> {
  const before = await getHistorySettings(ctx, phoneRef)
  return ctx.store.write(async (q) => {
    const settings: HistorySettings = {
      phoneId: before.phoneId,
      historySync: input.historySync ?? before.historySync,
      historyDays: input.historyDays ?? before.historyDays,
      updatedAtMs: ctx.clock.nowMs(),
    }
    await q.saveHistorySettings(settings)
    return settings
  })
}
