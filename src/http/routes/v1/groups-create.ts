import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { CreateGroupBody, GroupCreated } from "../../models/groups"
import { parseJsonBody, type RawBody } from "../../validation"

/** POST /v1/groups */
export const groupsCreate = (deps: HttpDeps) => (app: ApiApp) =>
  app.post(
    "/groups",
    async ({ body, principal, set, request }) => {
      const fromHeader = { field: "idempotencyKey", header: "Idempotency-Key", value: request.headers.get("idempotency-key") }
      const { fromPhoneId, ...cmd } = parseJsonBody(CreateGroupBody, body as RawBody, fromHeader)
      const { replayed, ...created } = await deps.groups.create(principal, fromPhoneId, cmd)
      set.status = 201
      set.headers["Idempotent-Replayed"] = String(replayed)
      return ok(created)
    },
    {
      ...apiOperation({
        operationId: "createGroup",
        scopes: REQUIRED_SCOPES.groupsWrite,
        tag: "Groups",
        summary: "Create a group, with one result per participant",
        description:
          "The phone becomes the group's creator and admin. Each participant's result says what WhatsApp did: `added`, `not_on_whatsapp`, " +
          "or `invited` when their privacy settings refused the add and wagate sent them WhatsApp's group invite message, as the app does. " +
          "Test keys: a sandbox group (`120363…@g.us`) kept in the store; `+12025550101` is not on WhatsApp, `+12025550106` is invited. " +
          "Test keys only: reusing an idempotencyKey (or the `Idempotency-Key` header) with the same parameters returns the same group with `Idempotent-Replayed: true`.",
        body: CreateGroupBody,
        success: { status: 201, schema: Envelope(GroupCreated), description: "The group and each participant's result", headers: ["Idempotent-Replayed"] },
        errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
      }),
    },
  )
