import type { TSchema } from "@sinclair/typebox"
import { ErrorEnvelope } from "../models/common"
import { errorResponses, HEADERS } from "./components"
import { SchemaComponents, type Json, type JsonObject } from "./json-schema"
import { SIGNATURE_DESCRIPTION, webhooksSection } from "./webhooks"

/** What the builder needs of a route: Elysia's `app.routes` entries fit. */
export interface DocumentedRoute {
  method: string
  path: string
  hooks: { detail?: unknown }
}

const INFO_DESCRIPTION =
  "Self-hosted WhatsApp HTTP API.\n\n" +
  "- `/v1` is the public API. Authenticate with `Authorization: Bearer <API key>`: `sk_test_…` keys use the sandbox, " +
  "`sk_live_…` keys use WhatsApp. The environment always comes from the key: sending `environment` in a /v1 body or " +
  "query is refused with 400. Each operation lists the scopes that admit it; a key needs any one of them.\n" +
  "- `/admin/v1` is the operator's API, behind the admin token.\n" +
  "- Every failure uses the error envelope (`Error`); `message` holds one readable entry per problem. Bodies are at most 64 KiB " +
  "(413 beyond). A path called with a method it does not have answers 405 with an `Allow` header.\n" +
  "- `webhooks` lists the events wagate POSTs to your endpoints."

const TAGS: { name: string; description: string }[] = [
  { name: "Messages", description: "Send messages and follow their status." },
  { name: "Inbound messages", description: "Messages your live phones received; for test keys, what the sandbox was told to receive (POST /v1/sandbox/inbound)." },
  { name: "Groups", description: "The WhatsApp groups a phone can post to." },
  { name: "Phone numbers", description: "The account's sender phones and their connection state." },
  { name: "Contacts", description: "Which numbers are on WhatsApp, within each phone's hourly budget." },
  { name: "Chats", description: "A phone's conversations and each one's timeline, both directions and every origin; archive, pin, mute, mark read." },
  { name: "Events", description: "The account's events as a resumable Server-Sent Events stream, for clients without a public URL for webhooks." },
  { name: "Account", description: "The account and its usage." },
  { name: "Calls", description: "Incoming WhatsApp calls (simulated ones for test keys): reject one while it rings." },
  { name: "Sandbox", description: "Test keys only: make the sandbox receive a contact's message, reaction, poll vote or call, with the events a live one emits." },
  { name: "Admin: accounts", description: "The operator's API: accounts." },
  { name: "Admin: API keys", description: "The operator's API: API keys." },
  { name: "Admin: phones", description: "The operator's API: phones." },
  { name: "Admin: pairing", description: "The operator's API: pairing phones with WhatsApp and their connection." },
  { name: "Admin: webhooks", description: "The operator's API: webhook endpoints, deliveries and resends." },
  { name: "Admin: call policy", description: "The operator's API: what a phone does with incoming calls." },
  { name: "Admin: history", description: "The operator's API: how much chat history a phone asks WhatsApp for when paired." },
  { name: "Admin: nodes", description: "The operator's API: the nodes sharing the database and the phones each holds." },
  { name: "Operations", description: "Liveness, readiness and Prometheus metrics." },
  { name: "Webhooks", description: "Events wagate POSTs to your endpoints, signed with X-Service-Signature." },
]

const SECURITY_SCHEMES: Record<string, JsonObject> = {
  apiKey: {
    type: "http",
    scheme: "bearer",
    description:
      "An API key: `sk_test_…` (sandbox) or `sk_live_…` (WhatsApp). A key carries scopes; an operation's security lists one " +
      "requirement per accepted scope, so a key holding any one of them is admitted (403 otherwise).",
  },
  adminToken: { type: "http", scheme: "bearer", description: "The admin token (`adm_…`, or WAGATE_ADMIN_TOKEN)." },
  webhookSignature: { type: "apiKey", in: "header", name: "X-Service-Signature", description: SIGNATURE_DESCRIPTION },
}

/**
 * Builds the OpenAPI 3.1 document from the routes' own documentation (see ./operation.ts), the
 * shared headers and error responses, and the webhook event catalogue. Routes without an
 * `operationId` in their detail (the document and its page) are left out.
 */
export function buildOpenApiDocument(options: { version: string; routes: readonly DocumentedRoute[] }): JsonObject {
  const components = new SchemaComponents()
  const errorSchema = components.ref(ErrorEnvelope)
  const paths: Record<string, Record<string, Json>> = {}
  for (const route of options.routes) {
    const detail = route.hooks.detail as Record<string, unknown> | undefined
    if (!detail || typeof detail.operationId !== "string") continue
    const path = route.path.replace(/:(\w+)/g, "{$1}")
    paths[path] ??= {}
    // A WebSocket route (listed as "WS") is a GET that upgrades: OpenAPI has no method of its own for it.
    const method = route.method === "WS" ? "get" : route.method.toLowerCase()
    paths[path][method] = publishSchemas(detail, components) as Json
  }
  const { section: webhooks, streamEvent } = webhooksSection(components)
  markStreamFrames(paths, streamEvent)
  const document: JsonObject = {
    openapi: "3.1.0",
    info: {
      title: "wagate",
      version: options.version,
      description: INFO_DESCRIPTION,
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: "/", description: "The server that serves this document" }],
    tags: TAGS,
    paths,
    webhooks,
    components: {},
  }
  const used = referencedComponents(document)
  const responses = Object.fromEntries(Object.entries(errorResponses(errorSchema)).filter(([name]) => used.responses.has(name)))
  const headers = Object.fromEntries(Object.entries(HEADERS).filter(([name]) => used.headers.has(name) || responsesUse(responses, name)))
  document.components = { schemas: sorted(components.schemas), responses: sorted(responses), headers: sorted(headers), securitySchemes: SECURITY_SCHEMES }
  return document
}

/**
 * Names the frames' schema on the stream routes' success responses. OpenAPI 3.1 has no keyword
 * for the items of a stream (3.2's `itemSchema`), so it goes in an extension of that name.
 */
function markStreamFrames(paths: Record<string, Record<string, Json>>, streamEvent: JsonObject): void {
  const sse = (paths["/v1/events"]?.get as JsonObject | undefined)?.responses as Record<string, JsonObject> | undefined
  const ws = (paths["/v1/events/ws"]?.get as JsonObject | undefined)?.responses as Record<string, JsonObject> | undefined
  const sseMedia = (sse?.["200"]?.content as Record<string, JsonObject> | undefined)?.["text/event-stream"]
  if (sseMedia) sseMedia["x-itemSchema"] = streamEvent
  if (ws?.["101"]) ws["101"]["x-itemSchema"] = streamEvent
}

/** A copy of an operation with every `schema` (a TypeBox schema) in its published form. */
function publishSchemas(value: unknown, components: SchemaComponents): unknown {
  if (Array.isArray(value)) return value.map((v) => publishSchemas(v, components))
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [key, key === "schema" ? components.ref(v as TSchema) : publishSchemas(v, components)]),
  )
}

function referencedComponents(document: Json): { responses: Set<string>; headers: Set<string> } {
  const text = JSON.stringify(document)
  const names = (kind: string) => new Set([...text.matchAll(new RegExp(`"#/components/${kind}/([^"]+)"`, "g"))].map((m) => m[1]!))
  return { responses: names("responses"), headers: names("headers") }
}

function responsesUse(responses: Record<string, JsonObject>, header: string): boolean {
  return JSON.stringify(responses).includes(`"#/components/headers/${header}"`)
}

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)))
}
