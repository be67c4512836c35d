import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { LEASE_DEFAULTS } from "../../src/domain/lease-timings"
import { SQLITE_NODES_EXPLANATION } from "../../src/domain/node-overview"
import type { NodeIdentity } from "../../src/store/leases"
import { createHarness, type Harness } from "../helpers/harness"
import { TestClock } from "../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { freshMigratedDatabase } from "../store/contract/stores"
import { cli, makeDataDir, removeDataDir } from "./run-cli"
import { markPaired } from "../helpers/paired-phones"

/* `wagate nodes` (docs/operations.md § "Running several nodes"): the nodes as GET /admin/v1/nodes shows them. */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const LEASE_MS = LEASE_DEFAULTS.leaseMs
const A: NodeIdentity = { nodeId: "test-node-a", instanceId: "inst-a" }
const B: NodeIdentity = { nodeId: "test-node-b", instanceId: "inst-b" }

let dir: string
let h: Harness | undefined
beforeEach(() => {
  dir = makeDataDir()
})
afterEach(async () => {
  await h?.close()
  h = undefined
  removeDataDir(dir)
})

/** The table's rows of our test nodes, split into cells (a server wired with the lease keeper may list itself too). */
const rowsOf = (stdout: string, prefix: string) =>
  stdout
    .split("\n")
    .filter((l) => l.startsWith(prefix))
    .map((l) => l.split(/\s{2,}/))

describe("wagate nodes: success", () => {
  test("on SQLite it prints the one sentence saying nodes share phones only on PostgreSQL; --json the admin route's shape", async () => {
    const res = await cli(dir, ["nodes"])
    expect(res).toEqual({ code: 0, stdout: `${SQLITE_NODES_EXPLANATION}\n`, stderr: "" })
    const json = await cli(dir, ["nodes", "--json"])
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual({ store: "sqlite", leaseMs: LEASE_MS, explanation: SQLITE_NODES_EXPLANATION, unownedPhones: null, nodes: [] })
  })

  test("on PostgreSQL it prints a table of the nodes with state, phones/max and ages; --phones the phones each holds; --json matches", async () => {
    const url = await freshMigratedDatabase()
    h = await createHarness({ env: { WAGATE_DATABASE_URL: url } })
    const store = h.services.ctx.store
    const account = await h.seedAccount()
    const phones = [await h.seedPhone(account.id, "+14155550111"), await h.seedPhone(account.id, "+14155550112")]
    await markPaired(store, phones)
    const t0 = h.clock.nowMs()
    await store.registerNode({ ...A, maxPhones: 50, nowMs: t0 - 7_200_000, leaseMs: LEASE_MS, url: "http://10.0.0.1:3000" })
    await store.registerNode({ ...B, maxPhones: 9, nowMs: t0 - 90_000, leaseMs: LEASE_MS })
    const held = await store.claimPhones(A, 1, t0 - 8_000, LEASE_MS)
    await store.renewLeases(A, t0 - 2_100, LEASE_MS)
    const env = { WAGATE_DATABASE_URL: url }
    const clock = () => new TestClock(t0)

    const res = await cli(dir, ["nodes"], { env, clock: clock() })
    expect(res.code).toBe(0)
    expect(res.stderr).toBe("")
    expect(res.stdout.split("\n")[0]!.split(/\s{2,}/)).toEqual(["NODE", "STATE", "PHONES", "HEARTBEAT", "UP FOR", "OLDEST LEASE", "NEWEST LEASE", "URL"])
    expect(rowsOf(res.stdout, "test-node-")).toEqual([
      ["test-node-a", "live", "1/50", "2.1 s ago", "2 h 00 min", "8.0 s", "8.0 s", "http://10.0.0.1:3000"],
      ["test-node-b", "silent", "0/9", "1 min 30 s ago", "1 min 30 s", "-", "-", "-"],
    ])

    const withPhones = await cli(dir, ["nodes", "--phones"], { env, clock: clock() })
    expect(withPhones.code).toBe(0)
    const phone = phones.find((p) => p.id === held[0]!.phoneId)!
    expect(rowsOf(withPhones.stdout.split("\n\n")[1]!, "test-node-")).toEqual([["test-node-a", phone.id, phone.phoneNumber, "disconnected", String(held[0]!.token), "8.0 s"]])

    const json = await cli(dir, ["nodes", "--phones", "--json"], { env, clock: clock() })
    const api = await h.request("GET", "/admin/v1/nodes?phones=true", { key: await h.adminToken() })
    expect(JSON.parse(json.stdout)).toEqual(api.body.data)
  })
})

describe("wagate nodes: errors", () => {
  test("an argument is a usage error (exit 2) that shows the usage", async () => {
    const res = await cli(dir, ["nodes", "node-a"])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('nodes takes no argument, got "node-a"')
    expect(res.stderr).toContain("wagate nodes [--phones] [--json]")
  })

  test("an unreachable database: exit 1 with one line naming it, the password hidden", async () => {
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
    const port = probe.port
    probe.stop(true)
    const res = await cli(dir, ["nodes"], { env: { WAGATE_DATABASE_URL: `postgres://wagate:s3cret@127.0.0.1:${port}/x` } })
    expect(res.code).toBe(1)
    expect(res.stdout).toBe("")
    expect(res.stderr).not.toContain("s3cret")
    expect(res.stderr).toContain(`postgres://wagate:***@127.0.0.1:${port}/x`)
  })
})

describe("wagate nodes: security", () => {
  test("a node id with control characters is printed escaped, never raw", async () => {
    const url = await freshMigratedDatabase()
    h = await createHarness({ env: { WAGATE_DATABASE_URL: url } })
    await h.services.ctx.store.registerNode({ nodeId: "test-node-\x1b[31mred\n", instanceId: "i", maxPhones: 5, nowMs: h.clock.nowMs(), leaseMs: LEASE_MS })
    const res = await cli(dir, ["nodes"], { env: { WAGATE_DATABASE_URL: url }, clock: new TestClock(h.clock.nowMs()) })
    expect(res.code).toBe(0)
    expect(res.stdout).not.toContain("\x1b")
    expect(rowsOf(res.stdout, "test-node-")[0]![0]).toBe("test-node-\\x1b[31mred\\n")
  })
})
