import { sendMessage } from "../../../domain/messages"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { Message, SEND_EXAMPLES, SendMessageBody, SendMessageHeaders, toMessage } from "../../models/messages"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, type RawBody } from "../../validation"

/** POST /v1/messages/send */
export const messagesSend = (deps: HttpDeps) => (app: ApiApp) =>
  app.post(
    "/messages/send",
    async ({ body, principal, set, request }) => {
      // Stripe's convention: the key may come as a header instead of a body field.
      const fromHeader = { field: "idempotencyKey", header: "Idempotency-Key", value: request.headers.get("idempotency-key") }
      const input = parseJsonBody(SendMessageBody, body as RawBody, fromHeader)
      const { message, replayed } = await sendMessage(deps.ctx, { sandbox: deps.sandbox, live: deps.live }, principal, input)
      set.status = 201
      set.headers["Idempotent-Replayed"] = String(replayed)
      return ok(toMessage(message))
    },
    {
      ...apiOperation({
        operationId: "sendMessage",
        scopes: REQUIRED_SCOPES.send,
        tag: "Messages",
        summary: "Send a text, media, location or contact message, or a reply",
        description:
          "Test keys: born `sent` and simulated by the sandbox. Live keys: born `pending`. " +
          "Exactly one of content/mediaUrls, location and contact carries the message; replyTo, mentions and voiceNote modify it. " +
          "Reusing an idempotencyKey with the same parameters returns 201 with `Idempotent-Replayed: true` and the message's current data. " +
          "The key may be sent as the `Idempotency-Key` header instead; sent in both places, the two must be equal.",
        body: SendMessageBody,
        bodyExamples: SEND_EXAMPLES,
        headers: SendMessageHeaders,
        success: { status: 201, schema: Envelope(Message), description: "The message", headers: ["Idempotent-Replayed"] },
        errors: [400, 401, 403, 404, 413, 429],
      }),
    },
  )
