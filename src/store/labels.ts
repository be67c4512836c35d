import type { Environment } from "../lib/vocabulary"

/**
 * A phone's WhatsApp Business labels (docs/api.md § "Labels"): a live phone's as its app state
 * tells them (`label_edit`), a sandbox phone's as test keys made them. Which chats carry a label
 * is the chat's `labels` (src/store/chats.ts).
 */
export interface LabelRow {
  phoneId: string
  env: Environment
  /** WhatsApp's label id (a small number, as text). */
  labelId: string
  name: string
  /** WhatsApp's palette index, 0..19. */
  color: number
  /** Deleted on the phone: kept so a late association does not bring it back unnamed. */
  deleted: boolean
  updatedAtMs: number
}

/** src/store/sqlite/labels.ts and src/store/postgres/labels.ts */
export interface LabelsQueries {
  /** Creates or replaces a label (name, colour, deleted). */
  upsertLabel(row: LabelRow): Promise<void>
  /**
   * A phone's labels in one environment, by id (numerically); deleted ones left out unless
   * `withDeleted` (a new label's id must not reuse a deleted one's: the phone still knows it).
   */
  listLabels(phoneId: string, env: Environment, options?: { withDeleted?: boolean }): Promise<LabelRow[]>
}
