import { Type } from "@sinclair/typebox"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { CheckContactsBody, ContactCheck } from "../../models/contacts"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, type RawBody } from "../../validation"

/** POST /v1/contacts/check */
export const contactsCheck = (deps: HttpDeps) => (app: ApiApp) =>
  app.post(
    "/contacts/check",
    async ({ body, principal }) => ok(await deps.contactChecks.check(principal, parseJsonBody(CheckContactsBody, body as RawBody))),
    {
      ...apiOperation({
        operationId: "checkContacts",
        scopes: REQUIRED_SCOPES.contactsCheck,
        tag: "Contacts",
        summary: "Check which numbers are on WhatsApp",
        description:
          "Answers from the same 24-hour cache live sends use, asking WhatsApp in bulk for the rest. Each phone may ask about at most " +
          "`WAGATE_CHECKS_PER_PHONE_PER_HOUR` numbers an hour (default 600; cached answers are free): past it, `429` with `retryAfter`. " +
          "Test keys answer from the magic recipients: `+12025550101` is not on WhatsApp, every other number is.",
        body: CheckContactsBody,
        success: { status: 200, schema: Envelope(Type.Array(ContactCheck)), description: "One answer per distinct number, in the order given" },
        errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
      }),
    },
  )
