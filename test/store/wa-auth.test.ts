import { storeOver } from "../helpers/sqlite-store"
import { beforeEach, describe, expect, test } from "bun:test"
import { BufferJSON, initAuthCreds, proto } from "@whiskeysockets/baileys"
import * as baileys from "@whiskeysockets/baileys"
import { migrate, openDatabase, type Database } from "../../src/store/sqlite/db"
import { countKeys, getKeys, hasCreds, readCreds, setKeys, upsertCreds, wipeAuth } from "../../src/store/sqlite/wa-auth"
import { createWriter, type Writer } from "../../src/store/sqlite/writer"
import { isPaired, loadAuthState, storedCredsArePaired } from "../../src/whatsapp/baileys/auth-state"
import { TEST_EPOCH_MS, TestClock } from "../helpers/test-clock"

let db: Database
let clock: TestClock

beforeEach(() => {
  clock = new TestClock()
  db = openDatabase(":memory:")
  migrate(db, clock.nowMs())
})

describe("wa-auth store", () => {
  test("creds: absent, inserted, replaced; hasCreds follows the row", () => {
    expect(readCreds(db, "ph_1")).toBeNull()
    expect(hasCreds(db, "ph_1")).toBe(false)
    upsertCreds(db, "ph_1", '{"a":1}', TEST_EPOCH_MS)
    upsertCreds(db, "ph_1", '{"a":2}', TEST_EPOCH_MS + 5)
    expect(readCreds(db, "ph_1")).toBe('{"a":2}')
    expect(hasCreds(db, "ph_1")).toBe(true)
    expect(hasCreds(db, "ph_2")).toBe(false)
    expect(db.query("SELECT updated_at_ms AS t FROM wa_creds WHERE phone_id = 'ph_1'").get()).toEqual({ t: TEST_EPOCH_MS + 5 })
  })

  test("keys: set, get by type and ids, overwrite, delete with null, all in one call", () => {
    setKeys(db, "ph_1", [
      { type: "pre-key", id: "1", data: '"k1"' },
      { type: "pre-key", id: "2", data: '"k2"' },
      { type: "session", id: "1", data: '"s1"' },
    ])
    setKeys(db, "ph_2", [{ type: "pre-key", id: "1", data: '"other phone"' }])
    expect(getKeys(db, "ph_1", "pre-key", ["1", "2", "3"])).toEqual(new Map([["1", '"k1"'], ["2", '"k2"']]))
    expect(getKeys(db, "ph_1", "session", ["1"])).toEqual(new Map([["1", '"s1"']]))
    expect(getKeys(db, "ph_1", "pre-key", [])).toEqual(new Map())

    setKeys(db, "ph_1", [
      { type: "pre-key", id: "1", data: null },
      { type: "pre-key", id: "2", data: '"k2b"' },
    ])
    expect(getKeys(db, "ph_1", "pre-key", ["1", "2"])).toEqual(new Map([["2", '"k2b"']]))
    expect(getKeys(db, "ph_2", "pre-key", ["1"])).toEqual(new Map([["1", '"other phone"']]))
  })

  test("keys: ids with quotes and many ids at once", () => {
    const ids = Array.from({ length: 812 }, (_, i) => `${i + 1}`)
    setKeys(db, "ph_1", [...ids.map((id) => ({ type: "pre-key", id, data: `"${id}"` })), { type: "lid-mapping", id: 'a"b', data: '"x"' }])
    expect(getKeys(db, "ph_1", "pre-key", ids).size).toBe(812)
    expect(getKeys(db, "ph_1", "lid-mapping", ['a"b'])).toEqual(new Map([['a"b', '"x"']]))
    expect(countKeys(db, "ph_1")).toBe(813)
  })

  test("setKeys is atomic: a failing change leaves none of the batch", () => {
    setKeys(db, "ph_1", [{ type: "pre-key", id: "1", data: '"old"' }])
    // data is NOT NULL in the table; undefined slips past the types and makes the insert fail.
    const bad = { type: "pre-key", id: "3", data: undefined as unknown as string }
    expect(() =>
      setKeys(db, "ph_1", [{ type: "pre-key", id: "1", data: '"new"' }, { type: "pre-key", id: "2", data: '"two"' }, bad]),
    ).toThrow()
    expect(getKeys(db, "ph_1", "pre-key", ["1", "2"])).toEqual(new Map([["1", '"old"']]))
  })

  test("wipeAuth removes one phone's creds and keys, and nothing of another phone", () => {
    upsertCreds(db, "ph_1", "{}", TEST_EPOCH_MS)
    upsertCreds(db, "ph_2", "{}", TEST_EPOCH_MS)
    setKeys(db, "ph_1", [{ type: "session", id: "a", data: '"1"' }])
    setKeys(db, "ph_2", [{ type: "session", id: "a", data: '"2"' }])
    wipeAuth(db, "ph_1")
    expect(hasCreds(db, "ph_1")).toBe(false)
    expect(countKeys(db, "ph_1")).toBe(0)
    expect(hasCreds(db, "ph_2")).toBe(true)
    expect(countKeys(db, "ph_2")).toBe(1)
  })
})

describe("Baileys auth state over the store", () => {
  let writer: Writer
  let commits: (() => void)[]

  beforeEach(() => {
    // The commit runs only when the test says so: that is how "resolved after COMMIT" is observed.
    commits = []
    writer = createWriter(db, { schedule: (fn) => void commits.push(fn) })
  })
  const commit = () => commits.splice(0).forEach((fn) => fn())

  test("fresh credentials when none are stored; saveCreds round-trips Buffers and resolves after the commit", async () => {
    const auth = await loadAuthState(baileys, { store: storeOver(db, writer), clock }, "ph_1")
    expect(auth.state.creds.noiseKey.private).toBeInstanceOf(Uint8Array)
    let saved = false
    const saving = auth.saveCreds().then(() => (saved = true))
    await Promise.resolve()
    expect(saved).toBe(false)
    commit()
    await saving
    expect(saved).toBe(true)

    const again = await loadAuthState(baileys, { store: storeOver(db, writer), clock }, "ph_1")
    expect(Buffer.from(again.state.creds.noiseKey.private).equals(Buffer.from(auth.state.creds.noiseKey.private))).toBe(true)
    expect(again.state.creds.registrationId).toBe(auth.state.creds.registrationId)
    expect(JSON.parse(readCreds(db, "ph_1")!).noiseKey.private.type).toBe("Buffer")
  })

  test("keys.set writes and deletes through the Writer and resolves only once committed", async () => {
    const auth = await loadAuthState(baileys, { store: storeOver(db, writer), clock }, "ph_1")
    const pair = { public: Buffer.from([1, 2, 3]), private: Buffer.from([4, 5, 6]) }
    let done = false
    const setting = Promise.resolve(auth.state.keys.set({ "pre-key": { "1": pair, "2": pair }, session: { "a.0": Buffer.from("sess") } })).then(
      () => (done = true),
    )
    await Promise.resolve()
    expect(done).toBe(false)
    commit()
    await setting
    expect(done).toBe(true)

    const got = await auth.state.keys.get("pre-key", ["1", "2", "3"])
    expect(Object.keys(got).sort()).toEqual(["1", "2"])
    expect(Buffer.from(got["1"]!.public).equals(pair.public)).toBe(true)
    const sessions = await auth.state.keys.get("session", ["a.0"])
    expect(Buffer.from(sessions["a.0"]!).toString()).toBe("sess")

    const removing = auth.state.keys.set({ "pre-key": { "1": null } })
    commit()
    await removing
    expect(Object.keys(await auth.state.keys.get("pre-key", ["1", "2"]))).toEqual(["2"])
  })

  test("app-state-sync-key values come back as protobuf messages", async () => {
    const auth = await loadAuthState(baileys, { store: storeOver(db, writer), clock }, "ph_1")
    const keyData = proto.Message.AppStateSyncKeyData.fromObject({ keyData: Buffer.from("secret-key"), timestamp: 1700000000 })
    const p = auth.state.keys.set({ "app-state-sync-key": { AAAA: keyData } })
    commit()
    await p
    const got = (await auth.state.keys.get("app-state-sync-key", ["AAAA"])).AAAA!
    expect(got).toBeInstanceOf(proto.Message.AppStateSyncKeyData)
    expect(Buffer.from(got.keyData!).toString()).toBe("secret-key")
  })

  test("after detach nothing is written any more", async () => {
    const auth = await loadAuthState(baileys, { store: storeOver(db, writer), clock }, "ph_1")
    auth.detach()
    await auth.saveCreds()
    await auth.state.keys.set({ session: { x: Buffer.from("y") } })
    commit()
    expect(hasCreds(db, "ph_1")).toBe(false)
    expect(countKeys(db, "ph_1")).toBe(0)
  })

  test("paired means me.id and account, not registered", async () => {
    const creds = initAuthCreds()
    expect(isPaired(creds)).toBe(false)
    // What requestPairingCode leaves behind before the phone confirms.
    const codeRequested = { ...creds, me: { id: "15550001111@s.whatsapp.net", name: "~" } }
    expect(isPaired(codeRequested)).toBe(false)
    const registeredOnly = { ...creds, registered: true, me: { id: "15550001111@s.whatsapp.net" } }
    expect(isPaired(registeredOnly)).toBe(false)
    expect(isPaired({ ...creds, me: { id: "15550001111:1@s.whatsapp.net" }, account: { details: Buffer.from("d") } })).toBe(true)
    expect(isPaired(null)).toBe(false)

    expect(await storedCredsArePaired(storeOver(db), "ph_1")).toBe(false)
    upsertCreds(db, "ph_1", JSON.stringify({ ...creds, me: { id: "1@s.whatsapp.net" } }, BufferJSON.replacer), TEST_EPOCH_MS)
    expect(await storedCredsArePaired(storeOver(db), "ph_1")).toBe(false)
    upsertCreds(db, "ph_1", JSON.stringify({ ...creds, me: { id: "1@s.whatsapp.net" }, account: { details: Buffer.from("d") } }, BufferJSON.replacer), TEST_EPOCH_MS)
    expect(await storedCredsArePaired(storeOver(db), "ph_1")).toBe(true)
    upsertCreds(db, "ph_1", "not json", TEST_EPOCH_MS)
    expect(await storedCredsArePaired(storeOver(db), "ph_1")).toBe(false)
  })
})
