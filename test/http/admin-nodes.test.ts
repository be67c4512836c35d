import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { SQLITE_NODES_EXPLANATION, type NodeView } from "../../src/domain/node-overview"
import { LEASE_DEFAULTS } from "../../src/domain/lease-timings"
import { Envelope } from "../../src/http/models/common"
import { NodeOverview } from "../../src/http/models/nodes"
import type { NodeIdentity } from "../../src/store/leases"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { markPaired } from "../helpers/paired-phones"

/*
 * GET /admin/v1/nodes (docs/admin.md § "Nodes"): the nodes sharing a PostgreSQL database with
 * their state, phones and lease ages; on SQLite an empty list that says why.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const LEASE_MS = LEASE_DEFAULTS.leaseMs
const A: NodeIdentity = { nodeId: "test-node-a", instanceId: "inst-a" }
const B: NodeIdentity = { nodeId: "test-node-b", instanceId: "inst-b" }
const C: NodeIdentity = { nodeId: "test-node-c", instanceId: "inst-c" }

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

/** The listed nodes this test registered (a server wired with the lease keeper may list itself too). */
const ours = (body: { data: { nodes: NodeView[] } }): NodeView[] => body.data.nodes.filter((n) => n.nodeId.startsWith("test-node-"))

describe("GET /admin/v1/nodes: success", () => {
  test("on SQLite the list is empty and says that nodes share phones only on PostgreSQL", async () => {
    h = await createHarness()
    const res = await h.request("GET", "/admin/v1/nodes", { key: await h.adminToken() })
    expect(res.status).toBe(200)
    expectSchema(Envelope(NodeOverview), res.body)
    expect(res.body.data).toEqual({ store: "sqlite", leaseMs: LEASE_MS, explanation: SQLITE_NODES_EXPLANATION, unownedPhones: null, nodes: [] })
    expect(res.body.data.explanation).toContain("PostgreSQL")
  })

  test("on PostgreSQL each node shows its state, phones and ages, and ?phones=true which phones it holds with token and lease age", async () => {
    h = await createHarness({ database: "postgres" })
    const store = h.services.ctx.store
    const account = await h.seedAccount()
    const phones = [await h.seedPhone(account.id, "+14155550111"), await h.seedPhone(account.id, "+14155550112"), await h.seedPhone(account.id, "+14155550113")]
    await markPaired(store, phones)
    const t0 = h.clock.nowMs()
    const reg = (node: NodeIdentity, nowMs: number, maxPhones: number, url: string | null = null) => store.registerNode({ ...node, maxPhones, nowMs, leaseMs: LEASE_MS, url })
    await reg(A, t0 - 60_000, 50, "http://10.0.0.1:3000")
    await reg(B, t0 - 30_000, 7)
    await reg(C, t0 - 40_000, 9)
    const first = await store.claimPhones(A, 1, t0 - 7_000, LEASE_MS)
    const second = await store.claimPhones(A, 1, t0 - 4_000, LEASE_MS)
    await store.renewLeases(A, t0 - 2_000, LEASE_MS)
    // B heartbeat 30 s ago (more than a lease): silent. C released its phones: stopping.
    await store.releaseNode(C, t0 - 1_000)
    const admin = await h.adminToken()

    const res = await h.request("GET", "/admin/v1/nodes", { key: admin })
    expect(res.status).toBe(200)
    expectSchema(Envelope(NodeOverview), res.body)
    expect(res.body.data).toMatchObject({ store: "postgres", leaseMs: LEASE_MS, explanation: null })
    expect(ours(res.body)).toEqual([
      {
        nodeId: "test-node-a", state: "live", phones: 2, maxPhones: 50, url: "http://10.0.0.1:3000",
        startedAt: new Date(t0 - 60_000).toISOString(), heartbeatAt: new Date(t0 - 2_000).toISOString(),
        heartbeatAgeMs: 2_000, upForMs: 60_000, oldestLeaseAgeMs: 7_000, newestLeaseAgeMs: 4_000,
      },
      {
        nodeId: "test-node-b", state: "silent", phones: 0, maxPhones: 7, url: null,
        startedAt: new Date(t0 - 30_000).toISOString(), heartbeatAt: new Date(t0 - 30_000).toISOString(),
        heartbeatAgeMs: 30_000, upForMs: 30_000, oldestLeaseAgeMs: null, newestLeaseAgeMs: null,
      },
      {
        nodeId: "test-node-c", state: "stopping", phones: 0, maxPhones: 9, url: null,
        startedAt: new Date(t0 - 40_000).toISOString(), heartbeatAt: expect.any(String),
        heartbeatAgeMs: expect.any(Number), upForMs: 40_000, oldestLeaseAgeMs: null, newestLeaseAgeMs: null,
      },
    ])
    // Nothing else holds the third phone here: it is unowned (a wired server may have claimed it).
    expect(res.body.data.unownedPhones).toBeGreaterThanOrEqual(0)

    const withPhones = await h.request("GET", "/admin/v1/nodes?phones=true", { key: admin })
    expect(withPhones.status).toBe(200)
    expectSchema(Envelope(NodeOverview), withPhones.body)
    const [a, b, c] = ours(withPhones.body)
    const byId = new Map(phones.map((p) => [p.id, p]))
    expect(a!.leases).toEqual(
      [first[0]!, second[0]!]
        .sort((x, y) => x.phoneId.localeCompare(y.phoneId))
        .map((lease) => ({
          phoneId: lease.phoneId,
          phoneNumber: byId.get(lease.phoneId)!.phoneNumber,
          connectionStatus: "disconnected",
          token: lease.token,
          acquiredAt: new Date(lease === first[0] ? t0 - 7_000 : t0 - 4_000).toISOString(),
          ageMs: lease === first[0] ? 7_000 : 4_000,
          expiresAt: new Date(t0 - 2_000 + LEASE_MS).toISOString(),
        })),
    )
    expect(b!.leases).toEqual([])
    expect(c!.leases).toEqual([])
    // Without ?phones=true no node carries its leases.
    for (const node of res.body.data.nodes) expect("leases" in node).toBe(false)
  })
})

describe("GET /admin/v1/nodes: errors", () => {
  test.each(["maybe", "1", ""])("?phones=%p is a 400 that names the parameter", async (value) => {
    h = await createHarness()
    const res = await h.request("GET", `/admin/v1/nodes?phones=${value}`, { key: await h.adminToken() })
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual(["phones must be true or false"])
  })

  test("an unknown query parameter is a 400", async () => {
    h = await createHarness()
    const res = await h.request("GET", "/admin/v1/nodes?nodeId=x", { key: await h.adminToken() })
    expectErrorEnvelope(res, 400, "Bad Request")
  })
})

describe("GET /admin/v1/nodes: security", () => {
  test("needs the admin token: no token, an API key and a wrong token are 401", async () => {
    h = await createHarness()
    const { key } = await h.seedTenant()
    expectErrorEnvelope(await h.request("GET", "/admin/v1/nodes"), 401, "Unauthorized", "/admin/v1/nodes")
    expectErrorEnvelope(await h.request("GET", "/admin/v1/nodes", { key }), 401, "Unauthorized", "/admin/v1/nodes")
    expectErrorEnvelope(await h.request("GET", "/admin/v1/nodes", { key: "adm_not_the_token_00000000000000000000000000" }), 401, "Unauthorized", "/admin/v1/nodes")
  })

  test("is read-only: POST and DELETE are 405", async () => {
    h = await createHarness()
    for (const method of ["POST", "DELETE"]) {
      const res = await h.request(method, "/admin/v1/nodes", { key: await h.adminToken() })
      expect(res.status).toBe(405)
      expect(res.headers.get("allow")).toBe("GET")
    }
  })
})
