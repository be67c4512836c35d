import { Type } from "@sinclair/typebox"
import { MAX_HISTORY_DAYS } from "../../domain/history-settings"
import { named, OneOf, Timestamp } from "../../lib/schema"
import { toIso } from "../../lib/time"
import { HISTORY_SYNC_MODES } from "../../lib/vocabulary"
import type { HistorySettings as HistorySettingsRow } from "../../store/history-settings"
import { explainUnknownFields } from "../validation"

const HistorySyncSchema = OneOf(HISTORY_SYNC_MODES, {
  description: "`none`: no history; `recent`: what WhatsApp Web gets (the default); `full`: everything the phone holds (WhatsApp's full sync).",
  errorMessage: "historySync must be one of none, recent, full",
})
const HistoryDaysSchema = Type.Integer({
  minimum: 1,
  maximum: MAX_HISTORY_DAYS,
  description: `Messages older than this many days are not stored (1..${MAX_HISTORY_DAYS}, default 90).`,
  errorMessage: `historyDays must be a whole number from 1 to ${MAX_HISTORY_DAYS}`,
})

export const HistorySettingsBody = explainUnknownFields(
  named(
    "HistorySettingsRequest",
    Type.Object(
      { historySync: Type.Optional(HistorySyncSchema), historyDays: Type.Optional(HistoryDaysSchema) },
      { additionalProperties: false, description: "A field left out keeps the phone's current value. Applies to the phone's next pairing." },
    ),
  ),
  { phoneId: "the phone is named in the path, not the body" },
)

export const HistorySettings = named(
  "HistorySettings",
  Type.Object({
    phoneId: Type.String({ examples: ["ph_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
    historySync: HistorySyncSchema,
    historyDays: HistoryDaysSchema,
    updatedAt: Timestamp,
  }),
)

export function toHistorySettings(s: HistorySettingsRow): typeof HistorySettings.static {
  return { phoneId: s.phoneId, historySync: s.historySync, historyDays: s.historyDays, updatedAt: toIso(s.updatedAtMs) }
}
