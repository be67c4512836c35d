import type { AuthenticationCreds, AuthenticationState, SignalDataSet, SignalDataTypeMap, SignalKeyStore } from "@whiskeysockets/baileys"
import type { Clock } from "../../lib/clock"
import { decodeAuthValue, encodeAuthValue } from "./auth-codec"
import { LeaseLostError, type LeaseFence } from "../../store/leases"
import { type WaKeyChange } from "../../store/wa-auth"
import type { Store, StoreQueries } from "../../store/store"

/**
 * The Baileys module as loaded by `await import()`. It is passed in rather than imported here,
 * so that loading this file never loads Baileys (about 190 ms) on a server without live phones.
 */
export type BaileysModule = typeof import("@whiskeysockets/baileys")

/**
 * The most keys one write transaction stores. A larger `keys.set` (the 812 pre-keys of a first
 * login) is written in chunks, each its own commit, so the event loop serves requests between
 * them; a Signal session update is a handful of keys and stays one transaction. Each commit
 * costs an fsync on the event loop, so chunks are as large as a few milliseconds of encoding
 * and inserting allow (docs/performance.md § "Where a phone's time goes").
 */
export const KEY_WRITE_CHUNK = 400

/** What `loadAuthState` needs: the store, for reads and for every write. */
export interface AuthStateDeps {
  store: Store
  clock: Clock
  /**
   * What every write must prove, in its own transaction, when several nodes share the database
   * (docs/architecture.md § "Nodes and leases"): the lease this node held on the phone when the
   * socket opened. Null when one process owns every phone.
   */
  fence?: LeaseFence | null
  /** A write was refused because the fence no longer holds: another node owns the phone now. */
  onFenceRefused?: () => void
}

/** A phone's Baileys auth state and the way to persist its credentials. */
export interface SqliteAuthState {
  /** Hand this to `makeWASocket` (keys wrapped in `makeCacheableSignalKeyStore`). */
  state: AuthenticationState
  /** Persists `state.creds` as it is now; resolves once committed. */
  saveCreds(): Promise<void>
  /**
   * Stops every later write (credentials and keys): after a logout the rows were wiped, and a
   * socket still finishing its work must not bring them back.
   */
  detach(): void
}

/**
 * True when credentials describe a finished pairing. `creds.registered` cannot be used: QR
 * pairing never sets it, and `requestPairingCode` writes `creds.me` before the pairing is done,
 * so both `me.id` and the signed `account` must be there.
 */
export function isPaired(creds: { me?: { id?: string | null } | null; account?: unknown } | null | undefined): boolean {
  return !!creds?.me?.id && !!creds.account
}

/**
 * Reads whether the stored credentials of a phone are paired, from the raw JSON: `JSON.parse`
 * is enough for the two fields checked, so this runs without Baileys (at boot, for every phone).
 */
export async function storedCredsArePaired(store: StoreQueries, phoneId: string): Promise<boolean> {
  const json = await store.readCreds(phoneId)
  if (json === null) return false
  try {
    return isPaired(JSON.parse(json) as Parameters<typeof isPaired>[0])
  } catch {
    return false
  }
}

/**
 * A Baileys `AuthenticationState` backed by the wa_creds and wa_keys tables. Reads go straight
 * to the writer connection (they see writes of the open batch too); writes go through the Writer
 * and their promises resolve only after COMMIT, so Baileys never acknowledges a Signal key that a
 * crash could still lose. Credentials start fresh (`initAuthCreds`) when the phone has none.
 */
export async function loadAuthState(baileys: BaileysModule, deps: AuthStateDeps, phoneId: string): Promise<SqliteAuthState> {
  const { initAuthCreds, proto } = baileys
  const { store, clock } = deps
  const fence = deps.fence ?? null
  const stored = await store.readCreds(phoneId)
  const creds: AuthenticationCreds = stored === null ? initAuthCreds() : (decodeAuthValue(stored) as AuthenticationCreds)
  let detached = false

  /**
   * Commits `body` after proving the fence in the same transaction. A refused write stops every
   * later one (this node lost the phone; the new owner's rows must stay as they are).
   */
  async function fencedWrite(body: (q: StoreQueries) => Promise<void>): Promise<void> {
    try {
      await store.write(async (q) => {
        if (fence) await q.assertLease(phoneId, fence.nodeId, fence.token, clock.nowMs())
        await body(q)
      })
    } catch (err) {
      if (!(err instanceof LeaseLostError)) throw err
      detached = true
      deps.onFenceRefused?.()
      throw err
    }
  }

  /** Encodes and commits `entries` (type, id, value) in chunks; resolves once the last chunk is committed. */
  async function writeKeys(entries: [type: string, id: string, value: unknown][]): Promise<void> {
    for (let start = 0; start < entries.length; start += KEY_WRITE_CHUNK) {
      // A logout between two chunks wiped the rows: nothing more may be written.
      if (detached) return
      const changes: WaKeyChange[] = entries.slice(start, start + KEY_WRITE_CHUNK).map(([type, id, value]) => ({
        type,
        id,
        data: value === null || value === undefined ? null : encodeAuthValue(value),
      }))
      // Each write commits in a later macrotask (the Writer's group commit), so awaiting it yields the loop.
      await fencedWrite((q) => q.setKeys(phoneId, changes))
    }
  }

  const keys: SignalKeyStore = {
    async get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
      const out: { [id: string]: SignalDataTypeMap[T] } = {}
      for (const [id, json] of await store.getKeys(phoneId, type, ids)) {
        let value: unknown = decodeAuthValue(json)
        // App-state keys are protobuf messages: Baileys calls methods on them, so plain JSON is not enough.
        if (type === "app-state-sync-key") value = proto.Message.AppStateSyncKeyData.fromObject(value as object)
        out[id] = value as SignalDataTypeMap[T]
      }
      return out
    },
    async set(data: SignalDataSet) {
      if (detached) return
      const entries: [string, string, unknown][] = []
      for (const [type, byId] of Object.entries(data)) {
        for (const [id, value] of Object.entries(byId ?? {})) entries.push([type, id, value])
      }
      await writeKeys(entries)
    },
  }

  return {
    state: { creds, keys },
    async saveCreds() {
      if (detached) return
      // Serialized now, so the row holds the credentials as they were when Baileys asked.
      const json = encodeAuthValue(creds)
      await fencedWrite((q) => q.upsertCreds(phoneId, json, clock.nowMs()))
    },
    detach() {
      detached = true
    },
  }
}
