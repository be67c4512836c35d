import { expect, setDefaultTimeout, test } from "bun:test"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { account, phone } from "./fixtures"
import { describeStores, type ContractStore } from "./stores"

/* The sandbox's block lists (SandboxBlocksQueries, SQLite migration 26 / PostgreSQL 14) on both stores. */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS
const LID = "123456789012345@lid"

async function withPhones(store: ContractStore): Promise<ContractStore> {
  await store.insertAccount(account())
  await store.insertPhone(phone())
  await store.insertPhone(phone({ id: "ph_2", phoneNumber: "+15550000002" }))
  return store
}

const set = (store: ContractStore, phoneId: string, contact: string, blocked: boolean, atMs: number) =>
  store.write((q) => q.setSandboxBlock(phoneId, contact, blocked, atMs))

describeStores("sandbox block lists", (open) => {
  test("blocks read back per phone, oldest first; blocking again keeps the first time", async () => {
    const store = await withPhones(await open())
    await set(store, "ph_1", LID, true, T + 2)
    await set(store, "ph_1", "+14155550199", true, T + 1)
    await set(store, "ph_1", LID, true, T + 9)
    await set(store, "ph_2", "+14155550177", true, T)
    expect(await store.listSandboxBlocks("ph_1")).toEqual([
      { phoneId: "ph_1", contact: "+14155550199", blockedAtMs: T + 1 },
      { phoneId: "ph_1", contact: LID, blockedAtMs: T + 2 },
    ])
    expect(await store.listSandboxBlocks("ph_2")).toEqual([{ phoneId: "ph_2", contact: "+14155550177", blockedAtMs: T }])
  })

  test("unblocking removes the contact from that phone's list only; unblocking an unblocked contact changes nothing", async () => {
    const store = await withPhones(await open())
    await set(store, "ph_1", "+14155550199", true, T)
    await set(store, "ph_2", "+14155550199", true, T)
    await set(store, "ph_1", "+14155550199", false, T + 1)
    await set(store, "ph_1", "+14155550188", false, T + 1)
    expect(await store.listSandboxBlocks("ph_1")).toEqual([])
    expect((await store.listSandboxBlocks("ph_2")).map((r) => r.contact)).toEqual(["+14155550199"])
  })
})
