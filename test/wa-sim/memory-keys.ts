import { BufferJSON, proto, type SignalDataSet, type SignalDataTypeMap, type SignalKeyStore } from "@whiskeysockets/baileys"

/**
 * A Signal key store kept in memory as serialized JSON (`BufferJSON`), the way a database would
 * hold it. Serializing on every write means a test that reopens a socket over the same rows proves
 * that the state survives a round trip, not merely that an object was shared.
 */
export class MemoryKeyStore implements SignalKeyStore {
  /** `type` → `id` → JSON text. Exposed read-only so tests can count rows (e.g. uploaded pre-keys). */
  readonly rows = new Map<string, Map<string, string>>()

  async get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]): Promise<{ [id: string]: SignalDataTypeMap[T] }> {
    const table = this.rows.get(type)
    const out: { [id: string]: SignalDataTypeMap[T] } = {}
    for (const id of ids) {
      const json = table?.get(id)
      if (json === undefined) continue
      const value: unknown = JSON.parse(json, BufferJSON.reviver)
      // App-state keys are protobuf objects; Baileys expects them revived as such.
      out[id] = (type === "app-state-sync-key" ? proto.Message.AppStateSyncKeyData.fromObject(value as object) : value) as SignalDataTypeMap[T]
    }
    return out
  }

  async set(data: SignalDataSet): Promise<void> {
    for (const [type, entries] of Object.entries(data)) {
      if (!entries) continue
      let table = this.rows.get(type)
      if (!table) this.rows.set(type, (table = new Map()))
      for (const [id, value] of Object.entries(entries)) {
        if (value === null || value === undefined) table.delete(id)
        else table.set(id, JSON.stringify(value, BufferJSON.replacer))
      }
    }
  }

  async clear(): Promise<void> {
    this.rows.clear()
  }

  /** Number of rows of one key type. */
  count(type: keyof SignalDataTypeMap): number {
    return this.rows.get(type)?.size ?? 0
  }
}
