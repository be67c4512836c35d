import type { Server } from "bun"
import { FakeGateway } from "../fakes/fake-gateway"
import { silentLogger, type Logger } from "../../src/lib/logger"
import { freshMigratedDatabase } from "../store/contract/stores"
import { createHarness, type Harness } from "./harness"
import { TestClock } from "./test-clock"
import { waitUntil } from "./webhook-receiver"

/*
 * Two nodes on one PostgreSQL database, each listening on a real port of 127.0.0.1 and
 * advertising it as its WAGATE_NODE_URL, for the tests of forwarding between nodes
 * (docs/operations.md § "Running several nodes"). A test file calls `testPostgres()` in a
 * `beforeAll` and `forwardingCluster.close()` in an `afterEach`.
 */

/** A listening port on 127.0.0.1 whose requests go to `handle` once it is set (the node starts after it knows its URL). */
export interface Listener {
  url: string
  server: Server<undefined>
  handle(fn: (req: Request) => Response | Promise<Response>): void
}

export interface ForwardingCluster {
  n1: Harness
  n2: Harness
  gateway: FakeGateway
  n1Server: Server<undefined>
}

const nodes: Harness[] = []
const servers: Server<undefined>[] = []

export const forwardingCluster = {
  /** Stops every node and listener the tests of this file started. */
  async close(): Promise<void> {
    for (const h of nodes.splice(0).reverse()) await h.close()
    for (const s of servers.splice(0)) await s.stop(true)
  },
}

export function listener(): Listener {
  let handler: ((req: Request) => Response | Promise<Response>) | null = null
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => (handler ? handler(req) : new Response("not started", { status: 500 })) })
  servers.push(server)
  return { url: `http://127.0.0.1:${server.port}`, server, handle: (fn) => void (handler = fn) }
}

/**
 * n1 and n2 on a fresh database, each served on its own port. `n1Url` is what n1 advertises
 * (its own port unless given; null for none); n2 always advertises its own.
 */
export async function cluster(options: { n1Url?: (own: string, n2: string) => string | null; n1Logger?: Logger; n2Logger?: Logger } = {}): Promise<ForwardingCluster> {
  const url = await freshMigratedDatabase()
  const gateway = new FakeGateway()
  const l1 = listener()
  const l2 = listener()
  const start = async (nodeId: string, nodeUrl: string | null, logger: Logger = silentLogger) => {
    const env: Record<string, string> = { WAGATE_DATABASE_URL: url, WAGATE_NODE_ID: nodeId }
    if (nodeUrl !== null) env.WAGATE_NODE_URL = nodeUrl
    const h = await createHarness({ gateway, clock: new TestClock(), env, logger })
    nodes.push(h)
    return h
  }
  const n1 = await start("n1", options.n1Url ? options.n1Url(l1.url, l2.url) : l1.url, options.n1Logger)
  l1.handle((req) => n1.app.handle(req))
  const n2 = await start("n2", l2.url, options.n2Logger)
  l2.handle((req) => n2.app.handle(req))
  return { n1, n2, gateway, n1Server: l1.server }
}

/** A live tenant whose phone n1 paired and holds. */
export async function pairedOnN1(n1: Harness) {
  const tenant = await n1.seedTenant({ env: "live" })
  await n1.connectPhone(tenant.phone)
  await waitUntil(async () => (await n1.services.ctx.store.findPhone(tenant.phone.id))?.connectionStatus === "connected", 10_000, "n1 to connect the phone")
  return tenant
}
