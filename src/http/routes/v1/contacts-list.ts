import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { ContactList, ListContactsQuery } from "../../models/chats"
import { Envelope, ok } from "../../models/common"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseQuery } from "../../validation"

/** GET /v1/contacts */
export const contactsList = (deps: HttpDeps) => (app: ApiApp) =>
  app.get(
    "/contacts",
    async ({ query, principal }) => {
      const q = parseQuery(ListContactsQuery, query)
      return ok(await deps.chats.contacts(principal, { fromPhoneId: q.fromPhoneId, search: q.search, limit: q.limit ?? 50, cursor: q.cursor }))
    },
    {
      ...apiOperation({
        operationId: "listContacts",
        scopes: REQUIRED_SCOPES.contactsRead,
        tag: "Contacts",
        summary: "List a phone's contacts",
        description:
          "Who the phone talks with: number and LID when known, the address book's name, the contact's push name, the business flag and whether it is blocked. " +
          "Test keys see the senders the sandbox recorded. `search` matches part of any of them.",
        query: ListContactsQuery,
        success: { status: 200, schema: Envelope(ContactList), description: "A page of contacts" },
        errors: [400, 401, 403, 404, 429],
      }),
    },
  )
