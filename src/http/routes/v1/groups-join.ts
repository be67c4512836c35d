import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { GroupDetail, JoinGroupBody, JoinRequested } from "../../models/groups"
import { parseJsonBody, type RawBody } from "../../validation"

/** POST /v1/groups/join */
export const groupsJoin = (deps: HttpDeps) => (app: ApiApp) =>
  app.post(
    "/groups/join",
    async ({ body, principal, set }) => {
      const { fromPhoneId, invite } = parseJsonBody(JoinGroupBody, body as RawBody)
      const joined = await deps.groups.join(principal, fromPhoneId, invite)
      if (joined.requested) {
        set.status = 202
        return ok({ status: "requested" as const })
      }
      return ok(joined.group)
    },
    {
      ...apiOperation({
        operationId: "joinGroup",
        scopes: REQUIRED_SCOPES.groupsWrite,
        tag: "Groups",
        summary: "Join a group by its invite code or link",
        description: "`202` with `status: requested` when the group's admins approve joins; `404` when the invite was revoked or never existed.",
        body: JoinGroupBody,
        success: { status: 200, schema: Envelope(GroupDetail), description: "The group joined" },
        others: [{ status: 202, schema: Envelope(JoinRequested), description: "Asked to join: the admins approve" }],
        errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
      }),
    },
  )
