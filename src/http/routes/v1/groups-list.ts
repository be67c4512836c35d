import { Type } from "@sinclair/typebox"
import { listGroups } from "../../../domain/groups"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { Group, ListGroupsQuery } from "../../models/groups"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseQuery } from "../../validation"

/** GET /v1/groups */
export const groupsList = (deps: HttpDeps) => (app: ApiApp) =>
  app.get(
    "/groups",
    async ({ query, principal }) => {
      const q = parseQuery(ListGroupsQuery, query)
      return ok(await listGroups(deps.ctx, deps.liveGroups, principal, q.fromPhoneId))
    },
    {
      ...apiOperation({
        operationId: "listGroups",
        scopes: REQUIRED_SCOPES.groupsRead,
        tag: "Groups",
        summary: "List the groups a sender phone can post to",
        query: ListGroupsQuery,
        success: { status: 200, schema: Envelope(Type.Array(Group)), description: "Postable groups" },
        errors: [400, 401, 403, 404, 409, 429, 502, 503],
      }),
    },
  )
