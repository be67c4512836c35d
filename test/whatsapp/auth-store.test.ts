/*
 * The phone's Signal key store and credentials as Baileys sees them: the stored text keeps
 * BufferJSON's format (rows written before this codec existed read the same), large key batches
 * are committed in chunks and still store every key, `keys.set` resolves only once committed,
 * and the shared key cache never shows one socket what another cached.
 */
import { storeOver } from "../helpers/sqlite-store"
import { beforeEach, describe, expect, test } from "bun:test"
import * as baileys from "@whiskeysockets/baileys"
import { BufferJSON, Curve, initAuthCreds, proto, signedKeyPair } from "@whiskeysockets/baileys"
import { migrate, openDatabase, type Database } from "../../src/store/sqlite/db"
import { countKeys, getKeys, readCreds, setKeys, upsertCreds } from "../../src/store/sqlite/wa-auth"
import { createWriter, type Writer } from "../../src/store/sqlite/writer"
import { decodeAuthValue, encodeAuthValue } from "../../src/whatsapp/baileys/auth-codec"
import { KEY_WRITE_CHUNK, loadAuthState } from "../../src/whatsapp/baileys/auth-state"
import { createSignalKeyCache } from "../../src/whatsapp/baileys/key-cache"
import { TestClock } from "../helpers/test-clock"

const PHONE = "ph_auth"

let db: Database
let writer: Writer
let clock: TestClock

beforeEach(() => {
  clock = new TestClock()
  db = openDatabase(":memory:")
  migrate(db, clock.nowMs())
  writer = createWriter(db)
})

const identity = Curve.generateKeyPair()
const appStateKey = proto.Message.AppStateSyncKeyData.fromObject({
  keyData: Buffer.from("app state key bytes"),
  fingerprint: { rawId: 7, currentIndex: 2, deviceIndexes: [0, 1] },
  timestamp: 1_700_000_000,
})

/** Values of every shape the key store and the credentials row hold. */
const samples: [string, unknown][] = [
  ["fresh credentials", initAuthCreds()],
  ["paired credentials", { ...initAuthCreds(), me: { id: "15550001111:1@s.whatsapp.net", name: "x" }, account: { details: Buffer.from("d"), accountSignature: new Uint8Array([1, 2, 3]) } }],
  ["a pre-key pair", Curve.generateKeyPair()],
  ["a signed pre-key", signedKeyPair(identity, 1)],
  ["a protobuf app-state key (toJSON turns bytes into base64 text)", appStateKey],
  ["a bare Uint8Array", new Uint8Array([0, 255, 7])],
  ["a Buffer view into a larger buffer", Buffer.from("0123456789").subarray(2, 6)],
  ["nested arrays, nulls, numbers, an empty object", { a: [1, null, [Buffer.from("z")], {}], b: 0, c: "", d: false, e: undefined }],
  ["an object that already says it is a Buffer", { k: { type: "Buffer", data: "not base64" } }],
  ["an app-state version map", { version: 3, hash: Buffer.alloc(128, 9), indexValueMap: { abc: { valueMac: Buffer.from("m") } } }],
]

describe("auth codec", () => {
  test.each(samples)("%s: encoded text is what BufferJSON writes, decoded value is what BufferJSON reads", (_name, value) => {
    const expected = JSON.stringify(value, BufferJSON.replacer)
    const text = encodeAuthValue(value)
    expect(text).toBe(expected)
    expect(decodeAuthValue(text)).toEqual(JSON.parse(expected, BufferJSON.reviver))
  })

  test.each([
    ["bytes as base64", '{"private":{"type":"Buffer","data":"AQID"},"n":1}'],
    ["bytes as an object of numbered bytes", '{"k":{"0":1,"1":2,"2":255}}'],
    ["bytes as a Buffer's own toJSON (a number array stays an object)", '{"k":{"type":"Buffer","data":[1,2,3]}}'],
    ["arrays of byte objects", '[{"type":"Buffer","data":"AA=="},{"0":4}]'],
    ["text that only looks numbered", '{"k":{"0":"a"},"j":{"1x":2}}'],
  ])("a row written by BufferJSON (%s) reads back as BufferJSON reads it", (_name, text) => {
    expect(decodeAuthValue(text)).toEqual(JSON.parse(text, BufferJSON.reviver))
  })
})

describe("SQLite auth state", () => {
  test("a first login's 812 pre-keys are all stored, in several commits, and read back as equal key pairs", async () => {
    const auth = await loadAuthState(baileys, { store: storeOver(db, writer), clock }, PHONE)
    const preKeys: Record<string, { public: Uint8Array; private: Uint8Array }> = {}
    for (let id = 1; id <= 812; id++) preKeys[String(id)] = Curve.generateKeyPair()
    let commits = 0
    writer.beforeCommit(() => void commits++)
    await auth.state.keys.set({ "pre-key": preKeys })
    expect(countKeys(db, PHONE)).toBe(812)
    expect(commits).toBe(Math.ceil(812 / KEY_WRITE_CHUNK))
    const back = await auth.state.keys.get("pre-key", Object.keys(preKeys))
    expect(back).toEqual(preKeys)
  })

  test("keys.set resolves only after its rows are committed, for a small and a chunked write", async () => {
    const auth = await loadAuthState(baileys, { store: storeOver(db, writer), clock }, PHONE)
    const order: string[] = []
    writer.beforeCommit(() => void order.push("commit"))
    const preKeys: Record<string, { public: Uint8Array; private: Uint8Array }> = {}
    for (let id = 1; id <= KEY_WRITE_CHUNK + 1; id++) preKeys[String(id)] = Curve.generateKeyPair()
    await auth.state.keys.set({ session: { "1555.0": Buffer.from("session") } })
    order.push("small resolved")
    await auth.state.keys.set({ "pre-key": preKeys })
    order.push("large resolved")
    expect(order).toEqual(["commit", "small resolved", "commit", "commit", "large resolved"])
    expect(db.inTransaction).toBe(false)
    expect(countKeys(db, PHONE)).toBe(KEY_WRITE_CHUNK + 2)
  })

  test("a logout between two chunks stops the rest of a large write", async () => {
    const auth = await loadAuthState(baileys, { store: storeOver(db, writer), clock }, PHONE)
    const preKeys: Record<string, unknown> = {}
    for (let id = 1; id <= KEY_WRITE_CHUNK * 3; id++) preKeys[String(id)] = Curve.generateKeyPair()
    writer.beforeCommit(() => auth.detach())
    await auth.state.keys.set({ "pre-key": preKeys } as never)
    expect(countKeys(db, PHONE)).toBe(KEY_WRITE_CHUNK)
  })

  test("a null value deletes the key; credentials saved are read back by the next load", async () => {
    const auth = await loadAuthState(baileys, { store: storeOver(db, writer), clock }, PHONE)
    await auth.state.keys.set({ "pre-key": { "1": Curve.generateKeyPair(), "2": Curve.generateKeyPair() } })
    await auth.state.keys.set({ "pre-key": { "1": null } })
    expect([...getKeys(db, PHONE, "pre-key", ["1", "2"]).keys()]).toEqual(["2"])
    auth.state.creds.me = { id: "15550001111:1@s.whatsapp.net" }
    await auth.saveCreds()
    const again = await loadAuthState(baileys, { store: storeOver(db, writer), clock }, PHONE)
    expect(again.state.creds).toEqual(auth.state.creds)
  })

  test("rows written by BufferJSON before the codec (credentials, keys, app-state keys) load unchanged", async () => {
    const creds = { ...initAuthCreds(), me: { id: "15550001111:1@s.whatsapp.net" }, account: { details: Buffer.from("d") } }
    upsertCreds(db, PHONE, JSON.stringify(creds, BufferJSON.replacer), clock.nowMs())
    const pair = Curve.generateKeyPair()
    setKeys(db, PHONE, [
      { type: "pre-key", id: "5", data: JSON.stringify(pair, BufferJSON.replacer) },
      { type: "app-state-sync-key", id: "AAA=", data: JSON.stringify(appStateKey, BufferJSON.replacer) },
    ])
    const auth = await loadAuthState(baileys, { store: storeOver(db, writer), clock }, PHONE)
    expect(auth.state.creds).toEqual(JSON.parse(readCreds(db, PHONE)!, BufferJSON.reviver))
    expect((await auth.state.keys.get("pre-key", ["5"]))["5"]).toEqual(pair)
    const key = (await auth.state.keys.get("app-state-sync-key", ["AAA="]))["AAA="]!
    expect(key).toBeInstanceOf(proto.Message.AppStateSyncKeyData)
    expect(Buffer.from(key.keyData!)).toEqual(Buffer.from("app state key bytes"))
  })
})

describe("shared Signal key cache", () => {
  test("holds at most its bound for all phones together, dropping the least recently used", () => {
    const cache = createSignalKeyCache(3)
    const a = cache.forPhone("a")
    const b = cache.forPhone("b")
    a.set("k1", 1)
    a.set("k2", 2)
    b.set("k1", 10)
    expect(a.get("k1")).toBe(1) // now the most recent
    b.set("k2", 20) // evicts a:k2, the least recent
    expect(cache.size).toBe(3)
    expect([a.get("k1"), a.get("k2"), b.get("k1"), b.get("k2")]).toEqual([1, undefined, 10, 20])
  })

  test("a new socket's view never sees what an earlier socket of the same phone cached; flushAll clears one view", () => {
    const cache = createSignalKeyCache(100)
    const first = cache.forPhone("a")
    first.set("session.x", "old")
    const other = cache.forPhone("b")
    other.set("session.x", "b's")
    expect(cache.forPhone("a").get("session.x")).toBeUndefined()
    first.flushAll()
    expect(first.get("session.x")).toBeUndefined()
    expect(other.get("session.x")).toBe("b's")
    other.del("session.x")
    expect(other.get("session.x")).toBeUndefined()
  })
})
