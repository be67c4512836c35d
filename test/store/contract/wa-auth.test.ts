import { expect, setDefaultTimeout, test } from "bun:test"
import { proto } from "@whiskeysockets/baileys"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { describeStores } from "./stores"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

describeStores("WhatsApp credentials and keys", (open) => {
  test("creds: absent, inserted, replaced; hasCreds follows the row", async () => {
    const store = await open()
    expect(await store.readCreds("ph_1")).toBeNull()
    expect(await store.hasCreds("ph_1")).toBe(false)
    await store.upsertCreds("ph_1", '{"a":1}', TEST_EPOCH_MS)
    await store.upsertCreds("ph_1", '{"a":2}', TEST_EPOCH_MS + 5)
    expect(await store.readCreds("ph_1")).toBe('{"a":2}')
    expect(await store.hasCreds("ph_1")).toBe(true)
    expect(await store.hasCreds("ph_2")).toBe(false)
  })

  test("keys: set, get by type and ids, overwrite, delete with null, all in one call", async () => {
    const store = await open()
    await store.setKeys("ph_1", [
      { type: "pre-key", id: "1", data: '"k1"' },
      { type: "pre-key", id: "2", data: '"k2"' },
      { type: "session", id: "1", data: '"s1"' },
    ])
    await store.setKeys("ph_2", [{ type: "pre-key", id: "1", data: '"other phone"' }])
    expect(await store.getKeys("ph_1", "pre-key", ["1", "2", "3"])).toEqual(new Map([["1", '"k1"'], ["2", '"k2"']]))
    expect(await store.getKeys("ph_1", "session", ["1"])).toEqual(new Map([["1", '"s1"']]))
    expect(await store.getKeys("ph_1", "pre-key", [])).toEqual(new Map())
    await store.setKeys("ph_1", [
      { type: "pre-key", id: "1", data: null },
      { type: "pre-key", id: "2", data: '"k2b"' },
    ])
    expect(await store.getKeys("ph_1", "pre-key", ["1", "2"])).toEqual(new Map([["2", '"k2b"']]))
    expect(await store.getKeys("ph_2", "pre-key", ["1"])).toEqual(new Map([["1", '"other phone"']]))
  })

  test("keys: within one call the last change of a key wins, whether it writes or deletes", async () => {
    const store = await open()
    await store.setKeys("ph_1", [{ type: "session", id: "a", data: '"old"' }])
    await store.setKeys("ph_1", [
      { type: "session", id: "a", data: null },
      { type: "session", id: "a", data: '"rewritten"' },
      { type: "session", id: "b", data: '"b1"' },
      { type: "session", id: "b", data: '"b2"' },
      { type: "session", id: "c", data: '"c"' },
      { type: "session", id: "c", data: null },
    ])
    expect(await store.getKeys("ph_1", "session", ["a", "b", "c"])).toEqual(new Map([["a", '"rewritten"'], ["b", '"b2"']]))
  })

  test("keys: ids with quotes and many ids at once", async () => {
    const store = await open()
    const ids = Array.from({ length: 812 }, (_, i) => `${i + 1}`)
    await store.setKeys("ph_1", [...ids.map((id) => ({ type: "pre-key", id, data: `"${id}"` })), { type: "lid-mapping", id: 'a"b', data: '"x"' }])
    expect((await store.getKeys("ph_1", "pre-key", ids)).size).toBe(812)
    expect(await store.getKeys("ph_1", "lid-mapping", ['a"b'])).toEqual(new Map([['a"b', '"x"']]))
    expect(await store.countKeys("ph_1")).toBe(813)
  })

  test("setKeys is atomic: a failing change leaves none of the batch, and inside a write only its own changes are undone", async () => {
    const store = await open()
    await store.setKeys("ph_1", [{ type: "pre-key", id: "1", data: '"old"' }])
    // data is NOT NULL in the table; undefined slips past the types and makes the insert fail.
    const bad = { type: "pre-key", id: "3", data: undefined as unknown as string }
    await expect(store.setKeys("ph_1", [{ type: "pre-key", id: "1", data: '"new"' }, { type: "pre-key", id: "2", data: '"two"' }, bad])).rejects.toThrow()
    expect(await store.getKeys("ph_1", "pre-key", ["1", "2"])).toEqual(new Map([["1", '"old"']]))
    await store.write(async (q) => {
      await q.upsertCreds("ph_1", "{}", TEST_EPOCH_MS)
      await expect(q.setKeys("ph_1", [{ type: "pre-key", id: "2", data: '"two"' }, bad])).rejects.toThrow()
    })
    expect(await store.hasCreds("ph_1")).toBe(true)
    expect(await store.getKeys("ph_1", "pre-key", ["2"])).toEqual(new Map())
  })

  test("wipeAuth removes one phone's creds and keys, and nothing of another phone", async () => {
    const store = await open()
    await store.upsertCreds("ph_1", "{}", TEST_EPOCH_MS)
    await store.upsertCreds("ph_2", "{}", TEST_EPOCH_MS)
    await store.setKeys("ph_1", [{ type: "session", id: "a", data: '"1"' }])
    await store.setKeys("ph_2", [{ type: "session", id: "a", data: '"2"' }])
    await store.wipeAuth("ph_1")
    expect(await store.hasCreds("ph_1")).toBe(false)
    expect(await store.countKeys("ph_1")).toBe(0)
    expect(await store.hasCreds("ph_2")).toBe(true)
    expect(await store.countKeys("ph_2")).toBe(1)
  })
})

const encode = (message: proto.IMessage) => proto.Message.encode(message).finish()

describeStores("stored WhatsApp messages of outbound parts", (open) => {
  test("the proto as sent comes back byte-exact for its phone only; sending the part again replaces it", async () => {
    const store = await open()
    const image = encode({ imageMessage: { url: "https://mmg/x", mediaKey: new Uint8Array(32).fill(7), caption: "pic", mimetype: "image/png" } })
    await store.saveSentWaMessage({ phoneId: "ph_a", waMessageId: "3EB0AA", message: encode({ conversation: "first" }), sentAtMs: 1_000 })
    await store.saveSentWaMessage({ phoneId: "ph_a", waMessageId: "3EB0AA", message: image, sentAtMs: 2_000 })
    const stored = await store.loadSentWaMessage("ph_a", "3EB0AA")
    expect(stored).toBeInstanceOf(Uint8Array)
    expect(Buffer.from(stored!).equals(Buffer.from(image))).toBe(true)
    expect(proto.Message.decode(stored!).imageMessage?.caption).toBe("pic")
    expect(await store.loadSentWaMessage("ph_b", "3EB0AA")).toBeNull()
    expect(await store.loadSentWaMessage("ph_a", "3EB0BB")).toBeNull()
  })

  test("pruning deletes only messages sent before the cutoff, oldest first, at most `limit` per call", async () => {
    const store = await open()
    for (let i = 0; i < 5; i++) await store.saveSentWaMessage({ phoneId: "ph_a", waMessageId: `OLD${i}`, message: encode({ conversation: `${i}` }), sentAtMs: 100 + i })
    await store.saveSentWaMessage({ phoneId: "ph_a", waMessageId: "YOUNG", message: encode({ conversation: "y" }), sentAtMs: 1_000 })
    expect(await store.pruneSentWaMessages(1_000, 3)).toBe(3)
    const kept = await Promise.all(["OLD0", "OLD2", "OLD3", "OLD4"].map(async (id) => (await store.loadSentWaMessage("ph_a", id)) !== null))
    expect(kept).toEqual([false, false, true, true])
    expect(await store.pruneSentWaMessages(1_000, 3)).toBe(2)
    expect(await store.pruneSentWaMessages(1_000, 3)).toBe(0)
    expect(await store.loadSentWaMessage("ph_a", "YOUNG")).not.toBeNull()
  })
})
