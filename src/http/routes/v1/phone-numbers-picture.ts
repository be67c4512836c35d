import { Type } from "@sinclair/typebox"
import { ownPicture, removeOwnPicture, setOwnPicture } from "../../../domain/own-profile"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { OwnProfile, PictureBody } from "../../models/own-profile"
import { PhoneIdParams } from "../../models/phones"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, type RawBody } from "../../validation"

const ENVIRONMENTS =
  "Live keys: the phone must be connected, and WhatsApp shows the change to contacts. Test keys: kept for the sandbox only; nothing changes on WhatsApp."

/** PUT, DELETE and GET /v1/phone-numbers/{id}/picture */
export const phoneNumbersPicture = (deps: HttpDeps) => (app: ApiApp) =>
  app
    .put(
      "/phone-numbers/:id/picture",
      async ({ body, params, principal }) =>
        ok(await setOwnPicture(deps.ctx, deps.ownProfile, principal, params.id, parseJsonBody(PictureBody, body as RawBody).mediaUrl)),
      {
        ...apiOperation({
          operationId: "setOwnPicture",
          scopes: REQUIRED_SCOPES.phoneNumbersWrite,
          tag: "Phone numbers",
          summary: "Set the phone's profile picture from an image URL",
          description:
            "The image is fetched like a send's media (https, public addresses, 16 MiB) and converted as WhatsApp Web does: its centre square as a 640 × 640 JPEG. " +
            `A file that is not a JPEG, PNG or WebP image, or one over 25 megapixels, is refused with \`400\`; one over 16 MiB with \`413\`. ${ENVIRONMENTS}`,
          path: PhoneIdParams,
          body: PictureBody,
          success: { status: 200, schema: Envelope(OwnProfile), description: "The phone's profile" },
          errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
        }),
      },
    )
    .delete("/phone-numbers/:id/picture", async ({ params, principal }) => ok(await removeOwnPicture(deps.ctx, deps.ownProfile, principal, params.id)), {
      ...apiOperation({
        operationId: "removeOwnPicture",
        scopes: REQUIRED_SCOPES.phoneNumbersWrite,
        tag: "Phone numbers",
        summary: "Remove the phone's profile picture",
        description: ENVIRONMENTS,
        path: PhoneIdParams,
        success: { status: 200, schema: Envelope(OwnProfile), description: "The phone's profile" },
        errors: [400, 401, 403, 404, 409, 429, 502, 503],
      }),
    })
    .get(
      "/phone-numbers/:id/picture",
      async ({ params, principal, set }) => {
        const jpeg = await ownPicture(deps.ctx, principal, params.id)
        Object.assign(set.headers, { "Content-Type": "image/jpeg", "X-Content-Type-Options": "nosniff", "Cache-Control": "private, max-age=0, no-store" })
        return new Blob([Buffer.from(jpeg)], { type: "image/jpeg" })
      },
      {
        ...apiOperation({
          operationId: "getOwnPicture",
          scopes: REQUIRED_SCOPES.phoneNumbersRead,
          tag: "Phone numbers",
          summary: "Download the profile picture last set through the API",
          description: "The 640 × 640 JPEG as sent to WhatsApp; `404` when none was set (or it was removed) with a key of this environment.",
          path: PhoneIdParams,
          success: { status: 200, contentType: "image/jpeg", schema: Type.String({ format: "binary" }), description: "The JPEG" },
          errors: [401, 403, 404, 429],
        }),
      },
    )
