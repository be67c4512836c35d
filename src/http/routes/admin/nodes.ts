import { nodeOverview } from "../../../domain/node-overview"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { ListNodesQuery, NodeOverview } from "../../models/nodes"
import { adminOperation } from "../../openapi/operation"
import type { AdminApp } from "../../plugins/admin-auth"
import { parseQuery } from "../../validation"

/** GET /admin/v1/nodes: the nodes sharing this database, their state, phones and lease ages (read-only). */
export const adminNodes = (deps: HttpDeps) => (app: AdminApp) =>
  app.get(
    "/nodes",
    async ({ query }) => {
      const q = parseQuery(ListNodesQuery, query)
      return ok(await nodeOverview(deps.ctx.store, { nowMs: deps.ctx.clock.nowMs(), leaseMs: deps.node.leaseMs, withPhones: q.phones === "true" }))
    },
    {
      ...adminOperation({
        operationId: "listNodes",
        tag: "Admin: nodes",
        summary: "The nodes sharing the database, with their state, phones and lease ages",
        description:
          "On PostgreSQL, every registered node, by node id. On SQLite the list is empty and `explanation` says why: the one process owns every phone. With `phones=true` each node lists the phones it holds with their lease.",
        query: ListNodesQuery,
        success: { status: 200, schema: Envelope(NodeOverview), description: "The nodes" },
        errors: [400, 401, 429],
      }),
    },
  )
