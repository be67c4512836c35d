import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { BlockContactBody, BlockList, BlockState, FromPhoneQuery } from "../../models/contact-profiles"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, parseQuery, type RawBody } from "../../validation"

const SANDBOX = "Test keys keep a block list per sandbox phone; `+12025550101` is not on WhatsApp (`404`)."

/** POST /v1/contacts/block, POST /v1/contacts/unblock and GET /v1/contacts/blocked */
export const contactsBlock = (deps: HttpDeps) => (app: ApiApp) =>
  app
    .post("/contacts/block", async ({ body, principal }) => ok(await deps.contactBlocks.block(principal, parseJsonBody(BlockContactBody, body as RawBody))), {
      ...apiOperation({
        operationId: "blockContact",
        scopes: REQUIRED_SCOPES.contactsWrite,
        tag: "Contacts",
        summary: "Block a contact",
        description: `Blocks the contact on WhatsApp, as the phone's app does; blocking a blocked contact again is accepted. ${SANDBOX}`,
        body: BlockContactBody,
        success: { status: 200, schema: Envelope(BlockState), description: "The contact, now blocked" },
        errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
      }),
    })
    .post("/contacts/unblock", async ({ body, principal }) => ok(await deps.contactBlocks.unblock(principal, parseJsonBody(BlockContactBody, body as RawBody))), {
      ...apiOperation({
        operationId: "unblockContact",
        scopes: REQUIRED_SCOPES.contactsWrite,
        tag: "Contacts",
        summary: "Unblock a contact",
        description: `Unblocks the contact on WhatsApp; unblocking a contact that is not blocked is accepted. ${SANDBOX}`,
        body: BlockContactBody,
        success: { status: 200, schema: Envelope(BlockState), description: "The contact, now unblocked" },
        errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
      }),
    })
    .get("/contacts/blocked", async ({ query, principal }) => ok({ contacts: await deps.contactBlocks.list(principal, parseQuery(FromPhoneQuery, query).fromPhoneId) }), {
      ...apiOperation({
        operationId: "listBlockedContacts",
        scopes: REQUIRED_SCOPES.contactsRead,
        tag: "Contacts",
        summary: "List the phone's blocked contacts",
        description:
          "Live keys: read from WhatsApp on every request, so a block made on the phone shows at once. " +
          "Test keys: the sandbox phone's block list.",
        query: FromPhoneQuery,
        success: { status: 200, schema: Envelope(BlockList), description: "The block list" },
        errors: [400, 401, 403, 404, 409, 429, 502, 503],
      }),
    })
