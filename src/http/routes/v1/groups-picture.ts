import { removeGroupPicture, setGroupPicture } from "../../../domain/group-pictures"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { GroupDetail, GroupIdParams, GroupPhoneBody } from "../../models/groups"
import { GroupPictureBody } from "../../models/own-profile"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, type RawBody } from "../../validation"

const RULES =
  "`404` when the phone is not in the group; `403` when only admins may edit the group's info and the phone is not one. " +
  "Live keys: the phone must be connected. Test keys: nothing changes on WhatsApp, and sandbox groups keep no picture."

/** PUT and DELETE /v1/groups/{groupId}/picture */
export const groupsPicture = (deps: HttpDeps) => (app: ApiApp) =>
  app
    .put(
      "/groups/:groupId/picture",
      async ({ params, body, principal }) =>
        ok(await setGroupPicture(deps.ctx, deps.groupPictures, principal, { ...parseJsonBody(GroupPictureBody, body as RawBody), groupId: params.groupId })),
      {
        ...apiOperation({
          operationId: "setGroupPicture",
          scopes: REQUIRED_SCOPES.groupsWrite,
          tag: "Groups",
          summary: "Set a group's picture from an image URL",
          description:
            "The image is fetched like a send's media and converted as WhatsApp Web does (its centre square as a 640 × 640 JPEG); " +
            `not a JPEG, PNG or WebP image, or over 25 megapixels → \`400\`, over 16 MiB → \`413\`. ${RULES}`,
          path: GroupIdParams,
          body: GroupPictureBody,
          success: { status: 200, schema: Envelope(GroupDetail), description: "The group" },
          errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
        }),
      },
    )
    .delete(
      "/groups/:groupId/picture",
      async ({ params, body, principal }) =>
        ok(await removeGroupPicture(deps.ctx, deps.groupPictures, principal, { ...parseJsonBody(GroupPhoneBody, body as RawBody), groupId: params.groupId })),
      {
        ...apiOperation({
          operationId: "removeGroupPicture",
          scopes: REQUIRED_SCOPES.groupsWrite,
          tag: "Groups",
          summary: "Remove a group's picture",
          description: RULES,
          path: GroupIdParams,
          body: GroupPhoneBody,
          success: { status: 200, schema: Envelope(GroupDetail), description: "The group" },
          errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
        }),
      },
    )
