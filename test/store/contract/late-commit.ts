import { SQL } from "bun"
import { openPostgresContractStore, type ContractStore } from "./stores"
import { seedAccount, T0 } from "./webhook-rows"

const INSERT = "INSERT INTO events (id, account_id, env, type, body, occurred_at_ms) VALUES ($1, $2, $3, $4, $5, $6)"

/**
 * The race a PostgreSQL reader of the event log must survive: `evt_1` (of the first account) is
 * inserted first but committed last, after `evt_2` (of the second). The reader reads while
 * `evt_1`'s transaction is still open, then once more after the last position it saw (null: none)
 * once it has committed. Returns the ids of both reads in order; a reader that skips nothing
 * returns `["evt_1", "evt_2"]`. `prepare` runs on the store before the inserts.
 */
export async function idsAcrossLateCommit(options: {
  accounts: [string, string]
  prepare?: (store: ContractStore) => Promise<void>
  read: (store: ContractStore, after: string | null) => Promise<{ id: string; position: string }[]>
}): Promise<string[]> {
  const opened = await openPostgresContractStore()
  const sql = new SQL(opened.url, { max: 2 })
  const first = await sql.reserve()
  const second = await sql.reserve()
  try {
    const store = opened.store
    for (const account of new Set(options.accounts)) await seedAccount(store, account)
    await options.prepare?.(store)
    const row = (id: string, account: string) => [id, account, "test", "message.delivered", `{"id":"${id}"}`, T0]
    await first.unsafe("BEGIN")
    await first.unsafe(INSERT, row("evt_1", options.accounts[0]))
    await second.unsafe("BEGIN")
    await second.unsafe(INSERT, row("evt_2", options.accounts[1]))
    await second.unsafe("COMMIT")
    const before = await options.read(store, null)
    await first.unsafe("COMMIT")
    const after = await options.read(store, before.at(-1)?.position ?? null)
    return [...before, ...after].map((e) => e.id)
  } finally {
    first.release()
    second.release()
    await sql.close()
    await opened.cleanup()
  }
}
