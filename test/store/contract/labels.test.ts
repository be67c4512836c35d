import { expect, setDefaultTimeout, test } from "bun:test"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import type { LabelRow } from "../../../src/store/labels"
import { account, phone } from "./fixtures"
import { describeStores, type ContractStore } from "./stores"

/* WhatsApp Business labels (LabelsQueries, SQLite migration 30 / PostgreSQL 18) on both stores. */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS

async function withPhones(store: ContractStore): Promise<ContractStore> {
  await store.insertAccount(account())
  await store.insertPhone(phone())
  await store.insertPhone(phone({ id: "ph_2", phoneNumber: "+15550000002" }))
  return store
}

const label = (over: Partial<LabelRow> = {}): LabelRow => ({ phoneId: "ph_1", env: "live", labelId: "1", name: "New customer", color: 0, deleted: false, updatedAtMs: T, ...over })
const put = (store: ContractStore, row: LabelRow) => store.write((q) => q.upsertLabel(row))

describeStores("labels", (open) => {
  test("labels read back per phone and environment, by id numerically", async () => {
    const store = await withPhones(await open())
    await put(store, label({ labelId: "10", name: "Paid", color: 5 }))
    await put(store, label({ labelId: "2", name: "Pending", color: 19 }))
    await put(store, label({ labelId: "3", env: "test" }))
    await put(store, label({ phoneId: "ph_2", labelId: "4" }))
    expect(await store.listLabels("ph_1", "live")).toEqual([label({ labelId: "2", name: "Pending", color: 19 }), label({ labelId: "10", name: "Paid", color: 5 })])
    expect((await store.listLabels("ph_1", "test")).map((l) => l.labelId)).toEqual(["3"])
    expect((await store.listLabels("ph_2", "live")).map((l) => l.labelId)).toEqual(["4"])
  })

  test("an edit replaces name and colour; a deleted label is left out of the list", async () => {
    const store = await withPhones(await open())
    await put(store, label({ labelId: "1" }))
    await put(store, label({ labelId: "2" }))
    await put(store, label({ labelId: "1", name: "Lead", color: 7, updatedAtMs: T + 5 }))
    await put(store, label({ labelId: "2", deleted: true, updatedAtMs: T + 6 }))
    expect(await store.listLabels("ph_1", "live")).toEqual([label({ labelId: "1", name: "Lead", color: 7, updatedAtMs: T + 5 })])
  })

  test("withDeleted lists deleted labels too, so a new label never takes the id of one the phone deleted", async () => {
    const store = await withPhones(await open())
    await put(store, label({ labelId: "1" }))
    await put(store, label({ labelId: "12", deleted: true, updatedAtMs: T + 6 }))
    await put(store, label({ labelId: "13", env: "test", deleted: true }))
    expect((await store.listLabels("ph_1", "live", { withDeleted: true })).map((l) => [l.labelId, l.deleted])).toEqual([["1", false], ["12", true]])
    expect((await store.listLabels("ph_1", "live", { withDeleted: false })).map((l) => l.labelId)).toEqual(["1"])
  })
})
