import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { GroupIdParams, GroupParticipantResults, GroupParticipantsBody } from "../../models/groups"
import { parseJsonBody, type RawBody } from "../../validation"

/** POST /v1/groups/{groupId}/participants */
export const groupsParticipants = (deps: HttpDeps) => (app: ApiApp) =>
  app.post(
    "/groups/:groupId/participants",
    async ({ params, body, principal }) => {
      const { fromPhoneId, action, participants } = parseJsonBody(GroupParticipantsBody, body as RawBody)
      return ok({ results: await deps.groups.participants(principal, fromPhoneId, params.groupId, action, participants) })
    },
    {
      ...apiOperation({
        operationId: "updateGroupParticipants",
        scopes: REQUIRED_SCOPES.groupsWrite,
        tag: "Groups",
        summary: "Add, remove, promote or demote participants, or approve or reject join requests",
        description:
          "Needs admin rights (`add` also without them when the group lets every member add): `403` otherwise. One result per participant, in the order given; " +
          "a refused add whose privacy settings forbid it is sent WhatsApp's group invite message (`invited`).",
        path: GroupIdParams,
        body: GroupParticipantsBody,
        success: { status: 200, schema: Envelope(GroupParticipantResults), description: "Each participant's result" },
        errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
      }),
    },
  )
