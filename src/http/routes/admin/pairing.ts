import { Type } from "@sinclair/typebox"
import { findPhoneAnywhere } from "../../../domain/phones"
import type { PairingState as DomainPairingState } from "../../../domain/sessions"
import type { HttpDeps } from "../../deps"
import { AdminPhone, toAdminPhone } from "../../models/admin"
import { Envelope, ok } from "../../models/common"
import { ConnectBody, PairingState, toPairingState } from "../../models/pairing"
import { adminOperation } from "../../openapi/operation"
import type { AdminApp } from "../../plugins/admin-auth"
import { parseJsonBody, type RawBody } from "../../validation"

const PhoneIdParams = Type.Object({ phoneId: Type.String() })
const TAG = "Admin: pairing"
/** A comment line keeps idle proxies from closing the stream. */
const SSE_KEEPALIVE_MS = 15_000

/** A phone's `ph_` id from what the path names: the id or the URL-encoded E.164 number (404 when neither). */
const phoneIdOf = async (deps: HttpDeps, ref: string) => (await findPhoneAnywhere(deps.ctx, ref)).id

/** Pairing and connection control of a phone (docs/decisions.md § "Operator surface"). */
export const adminPairing = (deps: HttpDeps) => (app: AdminApp) =>
  app
    .post(
      "/phones/:phoneId/connect",
      async ({ body, params }) => {
        const input = body === undefined || (body as RawBody).text.trim() === "" ? {} : parseJsonBody(ConnectBody, body as RawBody)
        return ok(toPairingState(await deps.sessions.connect(await phoneIdOf(deps, params.phoneId), input.method === "code" ? "code" : "qr")))
      },
      {
        ...adminOperation({
          operationId: "connectPhone",
          tag: TAG,
          summary: "Connect a phone: log in when paired, else start pairing by QR or code",
          path: PhoneIdParams,
          body: ConnectBody,
          success: { status: 200, schema: Envelope(PairingState), description: "The pairing state" },
          errors: [400, 401, 404, 409, 429, 503],
        }),
      },
    )
    .get("/phones/:phoneId/pairing", async ({ params }) => ok(toPairingState(await deps.sessions.pairingState(await phoneIdOf(deps, params.phoneId)))), {
      ...adminOperation({
        operationId: "getPairingState",
        tag: TAG,
        summary: "The phone's pairing state, with the raw QR string while it waits for a scan",
        path: PhoneIdParams,
        success: { status: 200, schema: Envelope(PairingState), description: "The pairing state" },
        errors: [401, 404, 409, 429, 503],
      }),
    })
    .get(
      "/phones/:phoneId/pairing/events",
      async ({ params, request }) => {
        const phoneId = await phoneIdOf(deps, params.phoneId)
        // Resolves the phone first, so an unknown phone is a 404 envelope, not an empty stream.
        const first = await deps.sessions.pairingState(phoneId)
        const encoder = new TextEncoder()
        let unsubscribe = () => {}
        let keepalive: { cancel(): void } | null = null
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            const done = () => {
              unsubscribe()
              keepalive?.cancel()
              try {
                controller.close()
              } catch {
                // Already closed by the client.
              }
            }
            const send = (state: DomainPairingState) => {
              controller.enqueue(encoder.encode(`event: pairing\ndata: ${JSON.stringify(toPairingState(state))}\n\n`))
              if (state.connectionStatus === "connected") done()
            }
            const ping = () => {
              controller.enqueue(encoder.encode(": keepalive\n\n"))
              keepalive = deps.ctx.clock.setTimer(SSE_KEEPALIVE_MS, ping)
            }
            unsubscribe = deps.sessions.subscribe(phoneId, send)
            keepalive = deps.ctx.clock.setTimer(SSE_KEEPALIVE_MS, ping)
            request.signal.addEventListener("abort", done)
            send(first)
          },
          cancel() {
            unsubscribe()
            keepalive?.cancel()
          },
        })
        return new Response(stream, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive" } })
      },
      adminOperation({
        operationId: "streamPairingState",
        tag: TAG,
        summary: "A server-sent-events stream of the pairing state (event: pairing), until the phone is connected",
        path: PhoneIdParams,
        success: {
          status: 200,
          contentType: "text/event-stream",
          schema: Type.String({ description: "`event: pairing` messages whose data is a PairingState object, and `: keepalive` comments." }),
          description: "The stream; it ends when the phone is connected",
        },
        errors: [401, 404, 409, 429, 503],
      }),
    )
    .post("/phones/:phoneId/disconnect", async ({ params }) => ok(toAdminPhone(await deps.sessions.disconnect(await phoneIdOf(deps, params.phoneId)))), {
      ...adminOperation({
        operationId: "disconnectPhone",
        tag: TAG,
        summary: "Close the phone's socket and keep its credentials; it stays offline, restarts included, until connected again (no QR needed)",
        path: PhoneIdParams,
        success: { status: 200, schema: Envelope(AdminPhone), description: "The phone" },
        errors: [401, 404, 409, 429, 503],
      }),
    })
    .post("/phones/:phoneId/logout", async ({ params }) => ok(toAdminPhone(await deps.sessions.logout(await phoneIdOf(deps, params.phoneId)))), {
      ...adminOperation({
        operationId: "logoutPhone",
        tag: TAG,
        summary: "Unlink the device and wipe its credentials; queued live sends fail with phone_disconnected",
        path: PhoneIdParams,
        success: { status: 200, schema: Envelope(AdminPhone), description: "The phone" },
        errors: [401, 404, 409, 429, 503],
      }),
    })
