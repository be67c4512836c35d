/** One key to write (`data` is its JSON) or to delete (`data` null), as Baileys' `keys.set` asks. */
export interface WaKeyChange {
  type: string
  id: string
  data: string | null
}
