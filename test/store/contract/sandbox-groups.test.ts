import { expect, setDefaultTimeout, test } from "bun:test"
import type { SandboxGroupRow } from "../../../src/store/sandbox-groups"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { account } from "./fixtures"
import { describeStores, type ContractStore } from "./stores"

/* The sandbox's groups (SandboxGroupsQueries, SQLite migration 23 / PostgreSQL 11) on both stores. */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS

const group = (over: Partial<SandboxGroupRow> = {}): SandboxGroupRow => ({
  accountId: "acc_1",
  groupId: "120363123456789012@g.us",
  state: JSON.stringify({ subject: "Club ✨", members: [] }),
  idempotencyKey: "create-1",
  requestFingerprint: "f1",
  createdAtMs: T,
  updatedAtMs: T,
  ...over,
})

async function withAccounts(store: ContractStore): Promise<ContractStore> {
  await store.insertAccount(account())
  await store.insertAccount(account({ id: "acc_2", email: "two@example.com" }))
  return store
}

const put = (store: ContractStore, row: SandboxGroupRow) => store.write((q) => q.putSandboxGroup(row))

describeStores("sandbox groups", (open) => {
  test("a group reads back as written, by id and by its create's idempotency key, only for its own account", async () => {
    const store = await withAccounts(await open())
    await put(store, group())
    expect(await store.findSandboxGroup("acc_1", "120363123456789012@g.us")).toEqual(group())
    expect(await store.findSandboxGroupByIdempotencyKey("acc_1", "create-1")).toEqual(group())
    expect(await store.findSandboxGroup("acc_2", "120363123456789012@g.us")).toBeNull()
    expect(await store.findSandboxGroupByIdempotencyKey("acc_2", "create-1")).toBeNull()
  })

  test("a later write replaces the state and keeps the create's key, fingerprint and creation time", async () => {
    const store = await withAccounts(await open())
    await put(store, group())
    await put(store, group({ state: "{\"subject\":\"Book club\"}", idempotencyKey: null, requestFingerprint: null, createdAtMs: T + 5, updatedAtMs: T + 10 }))
    expect(await store.findSandboxGroup("acc_1", "120363123456789012@g.us")).toEqual(group({ state: "{\"subject\":\"Book club\"}", updatedAtMs: T + 10 }))
  })

  test("an account's groups list oldest first; an idempotency key is one group's per account", async () => {
    const store = await withAccounts(await open())
    await put(store, group({ groupId: "120363000000000002@g.us", idempotencyKey: null, createdAtMs: T + 1 }))
    await put(store, group())
    await put(store, group({ accountId: "acc_2" }))
    expect((await store.listSandboxGroups("acc_1")).map((g) => g.groupId)).toEqual(["120363123456789012@g.us", "120363000000000002@g.us"])
    await expect(put(store, group({ groupId: "120363999999999999@g.us" }))).rejects.toThrow()
  })
})
