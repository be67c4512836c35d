import { Type } from "@sinclair/typebox"
import type { PictureFile } from "../../../domain/contact-profiles"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { ContactParams, ContactProfile, FromPhoneQuery } from "../../models/contact-profiles"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseQuery } from "../../validation"

const BUDGET =
  "Each lookup takes one from the phone's hourly budget that number checks use (`WAGATE_CHECKS_PER_PHONE_PER_HOUR`): past it, `429` with `retryAfter`."
const GroupParams = Type.Object({ groupId: Type.String({ examples: ["120363000000000001@g.us"] }) })
const Jpeg = { status: 200, contentType: "image/jpeg", schema: Type.String({ format: "binary", description: "The JPEG." }), description: "The picture's bytes" } as const

/** The picture as the route's body: Bun sends the cached file itself. */
function servePicture(file: PictureFile, set: { headers: Record<string, string | number> }) {
  Object.assign(set.headers, {
    "Content-Type": "image/jpeg",
    "Content-Length": String(file.sizeBytes),
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, max-age=0, no-store",
  })
  return Bun.file(file.path)
}

/** GET /v1/contacts/{contact}/profile, GET /v1/contacts/{contact}/picture and GET /v1/groups/{groupId}/picture */
export const contactsProfile = (deps: HttpDeps) => (app: ApiApp) =>
  app
    .get("/contacts/:contact/profile", async ({ params, query, principal }) => ok(await deps.contactProfiles.profile(principal, params.contact, parseQuery(FromPhoneQuery, query).fromPhoneId)), {
      ...apiOperation({
        operationId: "getContactProfile",
        scopes: REQUIRED_SCOPES.contactsRead,
        tag: "Contacts",
        summary: "Read a contact's profile",
        description:
          `The contact's name, about text, business profile and picture URL, asked of WhatsApp now. ${BUDGET} ` +
          "Test keys answer with the sandbox's profiles listed in docs/api.md under Contact profiles; `+12025550101` is not on WhatsApp (`404`).",
        path: ContactParams,
        query: FromPhoneQuery,
        success: { status: 200, schema: Envelope(ContactProfile), description: "The profile" },
        errors: [400, 401, 403, 404, 409, 429, 502, 503],
      }),
    })
    .get("/contacts/:contact/picture", async ({ params, query, principal, set }) =>
      servePicture(await deps.contactProfiles.contactPicture(principal, params.contact, parseQuery(FromPhoneQuery, query).fromPhoneId), set), {
      ...apiOperation({
        operationId: "getContactPicture",
        scopes: REQUIRED_SCOPES.contactsRead,
        tag: "Contacts",
        summary: "Download a contact's profile picture",
        description:
          "The JPEG, downloaded from WhatsApp once per picture and then served from wagate's cache (`WAGATE_MEDIA_CACHE_MB`); " +
          `\`404\` when there is none or the contact's privacy settings hide it. ${BUDGET}`,
        path: ContactParams,
        query: FromPhoneQuery,
        success: Jpeg,
        errors: [400, 401, 403, 404, 409, 429, 502, 503],
      }),
    })
    .get("/groups/:groupId/picture", async ({ params, query, principal, set }) =>
      servePicture(await deps.contactProfiles.groupPicture(principal, params.groupId, parseQuery(FromPhoneQuery, query).fromPhoneId), set), {
      ...apiOperation({
        operationId: "getGroupPicture",
        scopes: REQUIRED_SCOPES.groupDetailRead,
        tag: "Groups",
        summary: "Download a group's picture",
        description:
          "The group's JPEG, from wagate's cache while WhatsApp's picture id is unchanged; `404` when the group has none. " +
          "Test keys: the sandbox group `120363000000000001@g.us` has a picture, every other has none.",
        path: GroupParams,
        query: FromPhoneQuery,
        success: Jpeg,
        errors: [400, 401, 403, 404, 409, 429, 502, 503],
      }),
    })
