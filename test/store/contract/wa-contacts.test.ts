import { expect, setDefaultTimeout, test } from "bun:test"
import type { WaContactRow } from "../../../src/store/wa-contacts"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { account, phone } from "./fixtures"
import { describeStores, type ContractStore } from "./stores"

/* The senders a phone hears from (WaContactsQueries, SQLite migration 20 / PostgreSQL 8) on both stores. */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS
const LID = "123456789012345@lid"

const contact = (over: Partial<WaContactRow> = {}): WaContactRow => ({
  phoneId: "ph_1",
  address: LID,
  lid: LID,
  phoneNumber: null,
  username: "ada.lovelace",
  pushName: "Ada ✨",
  updatedAtMs: T,
  ...over,
})

async function withPhones(store: ContractStore): Promise<ContractStore> {
  await store.insertAccount(account())
  await store.insertPhone(phone())
  await store.insertPhone(phone({ id: "ph_2", phoneNumber: "+15550000002" }))
  return store
}

const upsert = (store: ContractStore, row: WaContactRow) => store.write((q) => q.upsertWaContact(row))

describeStores("WhatsApp contacts", (open) => {
  test("a sender known only by its LID, with a username and no number, reads back as written", async () => {
    const store = await withPhones(await open())
    await upsert(store, contact())
    expect(await store.findWaContact("ph_1", LID)).toEqual(contact())
    expect(await store.findWaContact("ph_2", LID)).toBeNull()
    expect(await store.findWaContact("ph_1", "+14155550166")).toBeNull()
  })

  test("a later message fills in what it names and keeps what it leaves out; the newest time wins", async () => {
    const store = await withPhones(await open())
    await upsert(store, contact())
    await upsert(store, contact({ username: null, pushName: "Ada L.", phoneNumber: "+14155550166", updatedAtMs: T + 5 }))
    expect(await store.findWaContact("ph_1", LID)).toEqual(contact({ pushName: "Ada L.", phoneNumber: "+14155550166", updatedAtMs: T + 5 }))
    // A message processed late (older time) still adds a new username, but does not move the time back.
    await upsert(store, contact({ username: "ada.l", pushName: null, updatedAtMs: T + 1 }))
    expect(await store.findWaContact("ph_1", LID)).toMatchObject({ username: "ada.l", pushName: "Ada L.", updatedAtMs: T + 5 })
  })

  test("each phone has its own senders, listed newest first", async () => {
    const store = await withPhones(await open())
    await upsert(store, contact({ updatedAtMs: T + 1 }))
    await upsert(store, contact({ address: "+14155550177", lid: null, phoneNumber: "+14155550177", username: null, updatedAtMs: T + 2 }))
    await upsert(store, contact({ phoneId: "ph_2", updatedAtMs: T + 3 }))
    expect((await store.listWaContacts("ph_1", 10)).map((c) => c.address)).toEqual(["+14155550177", LID])
    expect(await store.listWaContacts("ph_1", 1)).toHaveLength(1)
    expect((await store.listWaContacts("ph_2", 10)).map((c) => c.phoneId)).toEqual(["ph_2"])
  })

  test("forgetting a phone forgets its senders", async () => {
    const store = await withPhones(await open())
    await upsert(store, contact())
    await store.write((q) => q.deletePhone("ph_1"))
    expect(await store.listWaContacts("ph_1", 10)).toEqual([])
  })
})
