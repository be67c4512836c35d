import { E164_PATTERN } from "../../src/lib/formats"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import Ajv2020 from "ajv/dist/2020"
import { Elysia } from "elysia"
import { EVENT_GROUPS } from "../../src/lib/event-filter"
import { EVENT_NAMES } from "../../src/domain/event-catalogue"
import { MESSAGE_ERROR_CODES } from "../../src/lib/vocabulary"
import { REQUIRED_SCOPES } from "../../src/domain/scopes"
import { docsRoutes, SCALAR_BUNDLE_PATH } from "../../src/http/routes/docs"
import { createHarness, type Harness } from "../helpers/harness"
import { isMethodGuard } from "../../src/http/allowed-methods"

let h: Harness
let doc: any
let raw: string
beforeAll(async () => {
  h = await createHarness()
  const res = await h.app.handle(new Request("http://localhost/swagger/json"))
  raw = await res.text()
  doc = JSON.parse(raw)
})
afterAll(() => h.close())

/** Follows a local `$ref` (any depth) to the object it names. */
function resolve(node: any): any {
  while (node && typeof node.$ref === "string") {
    node = node.$ref
      .slice(2)
      .split("/")
      .reduce((at: any, part: string) => at[part.replace(/~1/g, "/").replace(/~0/g, "~")], doc)
  }
  return node
}

/** Every operation of the document: paths and webhooks. */
function operations(): { where: string; op: any }[] {
  const out: { where: string; op: any }[] = []
  for (const [section, items] of [["paths", doc.paths], ["webhooks", doc.webhooks]] as const) {
    for (const [path, item] of Object.entries(items as Record<string, any>)) {
      for (const [method, op] of Object.entries(item)) out.push({ where: `${section} ${method} ${path}`, op })
    }
  }
  return out
}

const V1_OPERATIONS: [string, string, number, string, readonly string[]][] = [
  ["post", "/v1/messages/send", 201, "sendMessage", REQUIRED_SCOPES.send],
  ["get", "/v1/messages", 200, "listMessages", REQUIRED_SCOPES.messagesRead],
  ["get", "/v1/messages/{messageId}", 200, "getMessage", REQUIRED_SCOPES.messagesRead],
  ["get", "/v1/messages/inbound", 200, "listInboundMessages", REQUIRED_SCOPES.messagesRead],
  ["get", "/v1/messages/inbound/{messageId}", 200, "getInboundMessage", REQUIRED_SCOPES.messagesRead],
  ["get", "/v1/groups", 200, "listGroups", REQUIRED_SCOPES.groupsRead],
  ["get", "/v1/phone-numbers", 200, "listPhoneNumbers", REQUIRED_SCOPES.phoneNumbersRead],
  ["get", "/v1/phone-numbers/{id}", 200, "getPhoneNumber", REQUIRED_SCOPES.phoneNumbersRead],
  ["get", "/v1/phone-numbers/{id}/status", 200, "getPhoneNumberStatus", REQUIRED_SCOPES.phoneNumbersRead],
  ["get", "/v1/account", 200, "getAccount", REQUIRED_SCOPES.accountRead],
  ["get", "/v1/account/usage", 200, "getAccountUsage", REQUIRED_SCOPES.accountRead],
  // Beyond the seed (docs/api.md § "Check numbers: POST /v1/contacts/check").
  ["post", "/v1/contacts/check", 200, "checkContacts", REQUIRED_SCOPES.contactsCheck],
  ["post", "/v1/presence", 204, "sendPresence", REQUIRED_SCOPES.send],
  // Beyond the seed (docs/api.md § "Act on a message").
  ["post", "/v1/messages/{messageId}/reaction", 200, "reactToMessage", REQUIRED_SCOPES.send],
  ["patch", "/v1/messages/{messageId}", 200, "editMessage", REQUIRED_SCOPES.send],
  ["delete", "/v1/messages/{messageId}", 200, "revokeMessage", REQUIRED_SCOPES.send],
  ["post", "/v1/messages/inbound/{messageId}/read", 200, "markInboundRead", REQUIRED_SCOPES.send],
  ["get", "/v1/messages/inbound/{messageId}/media", 200, "getInboundMessageMedia", REQUIRED_SCOPES.messagesRead],
  ["get", "/v1/messages/{messageId}/poll", 200, "getPollResults", REQUIRED_SCOPES.messagesRead],
  ["get", "/v1/messages/inbound/{messageId}/poll", 200, "getInboundPollResults", REQUIRED_SCOPES.messagesRead],
  ["post", "/v1/messages/inbound/{messageId}/vote", 200, "voteOnPoll", REQUIRED_SCOPES.send],
  // Beyond the seed (docs/api.md § "Calls").
  ["post", "/v1/calls/{callId}/reject", 204, "rejectCall", REQUIRED_SCOPES.send],
  // Beyond the seed (docs/api.md § "Sandbox inbound and calls"): test keys only.
  ["post", "/v1/sandbox/inbound", 201, "simulateInbound", REQUIRED_SCOPES.send],
  ["post", "/v1/sandbox/calls", 201, "simulateCall", REQUIRED_SCOPES.send],
  // Beyond the seed (docs/api.md § "Groups"): reads with any group or message scope, changes with groups:write.
  ["post", "/v1/groups", 201, "createGroup", REQUIRED_SCOPES.groupsWrite],
  ["get", "/v1/groups/{groupId}", 200, "getGroup", REQUIRED_SCOPES.groupDetailRead],
  ["patch", "/v1/groups/{groupId}", 200, "updateGroup", REQUIRED_SCOPES.groupsWrite],
  ["post", "/v1/groups/{groupId}/participants", 200, "updateGroupParticipants", REQUIRED_SCOPES.groupsWrite],
  ["get", "/v1/groups/{groupId}/invite", 200, "getGroupInvite", REQUIRED_SCOPES.groupsWrite],
  ["delete", "/v1/groups/{groupId}/invite", 200, "revokeGroupInvite", REQUIRED_SCOPES.groupsWrite],
  ["post", "/v1/groups/join", 200, "joinGroup", REQUIRED_SCOPES.groupsWrite],
  ["post", "/v1/groups/{groupId}/leave", 204, "leaveGroup", REQUIRED_SCOPES.groupsWrite],
  // Beyond the seed (docs/api.md § "Pictures and the phone's own profile").
  ["patch", "/v1/phone-numbers/{id}/profile", 200, "updateOwnProfile", REQUIRED_SCOPES.phoneNumbersWrite],
  ["put", "/v1/phone-numbers/{id}/picture", 200, "setOwnPicture", REQUIRED_SCOPES.phoneNumbersWrite],
  ["delete", "/v1/phone-numbers/{id}/picture", 200, "removeOwnPicture", REQUIRED_SCOPES.phoneNumbersWrite],
  ["get", "/v1/phone-numbers/{id}/picture", 200, "getOwnPicture", REQUIRED_SCOPES.phoneNumbersRead],
  ["put", "/v1/groups/{groupId}/picture", 200, "setGroupPicture", REQUIRED_SCOPES.groupsWrite],
  ["delete", "/v1/groups/{groupId}/picture", 200, "removeGroupPicture", REQUIRED_SCOPES.groupsWrite],
  // Beyond the seed (docs/api.md § "Blocking" and § "Contact profiles").
  ["post", "/v1/contacts/block", 200, "blockContact", REQUIRED_SCOPES.contactsWrite],
  ["post", "/v1/contacts/unblock", 200, "unblockContact", REQUIRED_SCOPES.contactsWrite],
  ["get", "/v1/contacts/blocked", 200, "listBlockedContacts", REQUIRED_SCOPES.contactsRead],
  ["get", "/v1/contacts/{contact}/profile", 200, "getContactProfile", REQUIRED_SCOPES.contactsRead],
  ["get", "/v1/contacts/{contact}/picture", 200, "getContactPicture", REQUIRED_SCOPES.contactsRead],
  ["get", "/v1/groups/{groupId}/picture", 200, "getGroupPicture", REQUIRED_SCOPES.groupDetailRead],
  // Beyond the seed (docs/api.md § "Chats and contacts").
  ["get", "/v1/chats", 200, "listChats", REQUIRED_SCOPES.messagesRead],
  ["get", "/v1/chats/{chatId}/messages", 200, "listChatMessages", REQUIRED_SCOPES.messagesRead],
  ["get", "/v1/chats/{chatId}/messages/{messageId}/media", 200, "getChatMessageMedia", REQUIRED_SCOPES.messagesRead],
  ["patch", "/v1/chats/{chatId}", 200, "updateChat", REQUIRED_SCOPES.send],
  ["get", "/v1/contacts", 200, "listContacts", REQUIRED_SCOPES.contactsRead],
  ["get", "/v1/labels", 200, "listLabels", REQUIRED_SCOPES.messagesRead],
  // Beyond the seed (docs/api.md § "Labels").
  ["post", "/v1/labels", 201, "createLabel", REQUIRED_SCOPES.send],
  ["put", "/v1/chats/{chatId}/labels", 200, "setChatLabels", REQUIRED_SCOPES.send],
  // Event streams (docs/webhooks.md § "Streams").
  ["get", "/v1/events", 200, "streamEvents", REQUIRED_SCOPES.eventsRead],
  ["get", "/v1/events/ws", 101, "streamEventsWebSocket", REQUIRED_SCOPES.eventsRead],
]

const RATE_LIMIT_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit", "X-Service-Environment"]

describe("OpenAPI document: the whole", () => {
  test("is OpenAPI 3.1 and the same at /swagger/json and /openapi.json", async () => {
    expect(doc.openapi).toBe("3.1.0")
    const alias = await h.app.handle(new Request("http://localhost/openapi.json"))
    expect(alias.headers.get("content-type")).toContain("application/json")
    expect(await alias.text()).toBe(raw)
  })

  test("documents every route the server has, except the document, its page and the dashboard's pages", () => {
    const documented = new Set(operations().filter((o) => o.where.startsWith("paths")).map((o) => o.where.slice("paths ".length)))
    // The dashboard (and `/`, which leads to it) serves HTML pages, not API (docs/dashboard.md).
    const isDashboard = (path: string) => path === "/" || path === "/dashboard" || path.startsWith("/dashboard/")
    const served = h.app.routes
      // The method guards only refuse the methods a path lacks (shadowedPathGuard): they are not operations.
      .filter((r) => !isMethodGuard(r) && !r.path.startsWith("/swagger") && r.path !== "/openapi.json" && !isDashboard(r.path))
      // A WebSocket route (listed as "WS") is documented as the GET that upgrades.
      .map((r) => `${r.method === "WS" ? "get" : r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, "{$1}")}`)
    expect([...documented].sort()).toEqual(served.sort())
  })

  test("carries no keyword of ours: the validation messages stay on the server", async () => {
    const keywords: string[] = []
    const walk = (node: unknown, path: string): void => {
      if (typeof node !== "object" || node === null) return
      for (const [key, value] of Object.entries(node)) {
        // A property *named* errorMessage (Message has one) holds a schema; the keyword holds a sentence.
        if (key === "errorMessage" && typeof value === "string") keywords.push(path)
        walk(value, `${path}/${key}`)
      }
    }
    walk(doc, "#")
    expect(keywords).toEqual([])
    // The server still explains a bad field with its own sentence.
    const { key, phone } = await h.seedTenant()
    const res = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "nope", content: "x" } })
    expect(res.body.message).toEqual(["to must be an E.164 number (+ and 8–15 digits), a group JID or a …@lid JID"])
  })

  test("names the spec's shapes in components.schemas", () => {
    const names = Object.keys(doc.components.schemas)
    for (const name of ["Message", "InboundMessage", "PhoneNumber", "PhoneNumberStatus", "Group", "Account", "Usage", "Pagination", "Error"]) {
      expect(names).toContain(name)
    }
    for (const name of ["AdminAccount", "ApiKey", "CreatedApiKey", "WebhookEndpoint", "WebhookDelivery", "PairingState", "SendMessageRequest"]) {
      expect(names).toContain(name)
    }
  })

  test("every $ref resolves, and every component is used", () => {
    const refs = [...raw.matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!)
    for (const ref of new Set(refs)) expect(resolve({ $ref: ref })).toBeDefined()
    for (const [kind, items] of Object.entries(doc.components) as [string, object][]) {
      if (kind === "securitySchemes") continue
      for (const name of Object.keys(items)) expect(refs).toContain(`#/components/${kind}/${name}`)
    }
  })

  test("every operation has a camelCase operationId, a summary, security, a 500 and a description on each response", () => {
    const ids = new Set<string>()
    for (const { where, op } of operations()) {
      expect({ where, id: /^[a-z][A-Za-z0-9]*$/.test(op.operationId) }).toEqual({ where, id: true })
      ids.add(op.operationId)
      expect(op.summary.length).toBeGreaterThan(5)
      expect(Array.isArray(op.security)).toBe(true)
      if (where.startsWith("paths")) expect({ where, has500: "500" in op.responses }).toEqual({ where, has500: true })
      for (const response of Object.values(op.responses)) expect(resolve(response).description.length).toBeGreaterThan(3)
    }
    expect(ids.size).toBe(operations().length)
  })

  test("every example is valid against the schema it illustrates", () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false })
    const invalid: string[] = []
    let checked = 0
    const walk = (node: unknown, path: string): void => {
      if (typeof node !== "object" || node === null) return
      const schema = node as Record<string, unknown>
      if (Array.isArray(schema.examples) && !JSON.stringify(schema).includes('"$ref"')) {
        const { examples, ...rest } = schema
        const check = ajv.compile(rest)
        for (const example of examples) {
          checked += 1
          if (!check(example)) invalid.push(`${path}: ${JSON.stringify(example)}`)
        }
      }
      for (const [key, value] of Object.entries(schema)) walk(value, `${path}/${key}`)
    }
    walk(doc.components.schemas, "#/components/schemas")
    walk(doc.paths, "#/paths")
    expect(invalid).toEqual([])
    expect(checked).toBeGreaterThan(30)
  })

  test("answers are JSON, except the metrics text, the pairing and account event streams, inbound media and pictures", () => {
    const types = new Map<string, Set<string>>()
    for (const { where, op } of operations().filter((o) => o.where.startsWith("paths"))) {
      for (const response of Object.values(op.responses)) {
        for (const type of Object.keys(resolve(response).content ?? {})) {
          if (!types.has(type)) types.set(type, new Set())
          types.get(type)!.add(where)
        }
      }
    }
    expect([...types.keys()].sort()).toEqual(["application/json", "application/octet-stream", "image/jpeg", "text/event-stream", "text/plain"])
    expect([...types.get("image/jpeg")!].sort()).toEqual(["paths get /v1/contacts/{contact}/picture", "paths get /v1/groups/{groupId}/picture", "paths get /v1/phone-numbers/{id}/picture"])
    expect([...types.get("application/octet-stream")!].sort()).toEqual(["paths get /v1/chats/{chatId}/messages/{messageId}/media", "paths get /v1/messages/inbound/{messageId}/media"])
    expect([...types.get("text/plain")!]).toEqual(["paths get /metrics"])
    expect([...types.get("text/event-stream")!].sort()).toEqual(["paths get /admin/v1/phones/{phoneId}/pairing/events", "paths get /v1/events"])
  })
})

describe("OpenAPI document: /v1", () => {
  test("documents exactly the spec's /v1 operations and the additions beyond it", () => {
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith("/v1"))
      .flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`))
      .sort()
    expect(documented).toEqual(V1_OPERATIONS.map(([m, p]) => `${m} ${p}`).sort())
  })

  test.each(V1_OPERATIONS)("%s %s: its operationId, success envelope, rate-limit headers and one security requirement per accepted scope", (method, path, ok, id, scopes) => {
    const op = doc.paths[path][method]
    expect(op.operationId).toBe(id)
    const success = op.responses[String(ok)]
    if (ok === 204) {
      // No Content: no body at all, not even the envelope.
      expect(success.content).toBeUndefined()
    } else if (id === "getInboundMessageMedia" || id === "getChatMessageMedia") {
      // The file itself, not an envelope.
      expect(success.content["application/octet-stream"].schema).toMatchObject({ type: "string", format: "binary" })
    } else if (id === "getOwnPicture" || id === "getContactPicture" || id === "getGroupPicture") {
      // The JPEG itself, not an envelope.
      expect(success.content["image/jpeg"].schema).toMatchObject({ type: "string", format: "binary" })
    } else if (id === "streamEvents") {
      // Server-Sent Events, not an envelope.
      expect(success.content["text/event-stream"].schema).toMatchObject({ type: "string" })
    } else if (id === "streamEventsWebSocket") {
      // The upgrade: no body, the frames are described in prose.
      expect(success.content).toBeUndefined()
      expect(success.description).toStartWith("Switching Protocols")
      expect(op.description).toContain("{id, event, timestamp, data}")
    } else {
      const schema = success.content["application/json"].schema
      expect(schema.properties.success).toEqual({ const: true, type: "boolean" })
      expect(schema.properties.data).toBeDefined()
    }
    expect(Object.keys(success.headers)).toEqual(expect.arrayContaining(RATE_LIMIT_HEADERS))
    expect(op.security).toEqual(scopes.map((scope) => ({ apiKey: [scope] })))
    for (const status of ["401", "403", "429", "500"]) {
      const response = resolve(op.responses[status])
      const envelope = response.content["application/json"].schema
      expect(resolve(envelope.allOf?.[0] ?? envelope)).toBe(doc.components.schemas.Error)
    }
  })

  test("a 401 declares WWW-Authenticate; a 429 declares Retry-After and requires retryAfter in the body", () => {
    const op = doc.paths["/v1/messages"].get
    expect(Object.keys(resolve(op.responses["401"]).headers)).toEqual(["WWW-Authenticate"])
    const tooMany = resolve(op.responses["429"])
    expect(Object.keys(tooMany.headers)).toContain("Retry-After")
    expect(resolve(tooMany.headers["Retry-After"]).required).toBe(true)
    expect(tooMany.content["application/json"].schema.allOf[1]).toEqual({ required: ["retryAfter"] })
  })

  test("the send operation's body carries every rule the server enforces", () => {
    const op = doc.paths["/v1/messages/send"].post
    expect(op.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/SendMessageRequest" })
    const body = doc.components.schemas.SendMessageRequest
    expect(Object.keys(body.properties)).toEqual(["fromPhoneId", "to", "content", "mediaUrls", "idempotencyKey", "replyTo", "mentions", "location", "contact", "poll", "voiceNote"])
    expect(body.required).toEqual(["fromPhoneId", "to"])
    expect(body.additionalProperties).toBe(false)
    expect(body.properties.content.maxLength).toBe(4096)
    expect(body.properties.mediaUrls).toMatchObject({ maxItems: 10, items: { type: "string", maxLength: 2048 } })
    expect(body.allOf[0].anyOf.map((b: any) => b.required)).toEqual([["content"], ["mediaUrls"], ["location"], ["contact"], ["poll"]])
    expect(body.properties.poll.properties.options).toMatchObject({ minItems: 2, maxItems: 12, uniqueItems: true, items: { type: "string", maxLength: 100 } })
    expect(body.properties.poll.properties.question).toMatchObject({ maxLength: 255 })
    expect(body.properties.mentions).toMatchObject({ maxItems: 50, items: { type: "string", pattern: E164_PATTERN } })
    expect(body.properties.location.properties.latitude).toMatchObject({ type: "number", minimum: -90, maximum: 90 })
    expect(body.properties.contact.properties.phoneNumbers).toMatchObject({ minItems: 1, maxItems: 5 })
    const examples = op.requestBody.content["application/json"].examples
    expect(Object.keys(examples)).toEqual(["text", "media", "reply", "mentions", "location", "contact", "poll", "voiceNote"])
    const check = new Ajv2020({ strict: false }).compile(body)
    for (const [name, example] of Object.entries<any>(examples)) expect({ name, valid: check(example.value) }).toEqual({ name, valid: true })
    expect(Object.keys(op.responses["201"].headers)).toContain("Idempotent-Replayed")
    expect(op.parameters).toEqual([expect.objectContaining({ name: "Idempotency-Key", in: "header", required: false })])
    expect(op.parameters[0].schema.pattern).toBe(body.properties.idempotencyKey.pattern)
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["400", "413"]))
  })

  test("a message's errorCode is the closed set, or null", () => {
    const errorCode = doc.components.schemas.Message.properties.errorCode
    expect(resolve(errorCode.anyOf[0]).enum).toEqual([...MESSAGE_ERROR_CODES])
    expect(errorCode.anyOf[1]).toEqual({ type: "null" })
  })

  test("list parameters document their bounds and defaults; usage's period defaults to month", () => {
    const params = Object.fromEntries(doc.paths["/v1/messages"].get.parameters.map((p: any) => [p.name, p]))
    expect(Object.keys(params)).toEqual(["phoneNumberId", "status", "page", "limit"])
    expect(params.page.schema).toMatchObject({ type: "integer", minimum: 1, default: 1 })
    expect(params.limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 20 })
    const period = doc.paths["/v1/account/usage"].get.parameters[0]
    expect(period.schema).toMatchObject({ type: "string", enum: ["day", "week", "month"], default: "month" })
    const phone = doc.paths["/v1/phone-numbers/{id}"].get.parameters
    expect(phone).toEqual([expect.objectContaining({ name: "id", in: "path", required: true })])
  })
})

describe("OpenAPI document: a validating proxy refuses what the server refuses", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["a valid text", { content: "hello" }],
    ["4096 emoji (code points, not UTF-16 units)", { content: "😀".repeat(4096) }],
    ["4097 emoji", { content: "😀".repeat(4097) }],
    ["media only", { mediaUrls: ["https://files.example.com/a.pdf"] }],
    ["an upper-case HTTPS scheme", { mediaUrls: ["HTTPS://files.example.com/a.pdf"] }],
    ["neither content nor media", {}],
    ["white space only", { content: "  \n " }],
    ["an http media URL", { mediaUrls: ["http://files.example.com/a.pdf"] }],
    ["a media URL of 2049 characters", { mediaUrls: [`https://files.example.com/${"a".repeat(2049 - 26)}`] }],
    ["eleven media URLs", { content: "x", mediaUrls: Array(11).fill("https://files.example.com/a.pdf") }],
    ["a recipient that is neither E.164 nor a group", { to: "14155550199", content: "x" }],
    ["environment in the body", { content: "x", environment: "test" }],
    ["an idempotencyKey with a space", { content: "x", idempotencyKey: "a b" }],
    ["a location", { location: { latitude: -90, longitude: 180, name: "Pole" } }],
    ["a location out of range", { location: { latitude: 90.1, longitude: 0 } }],
    ["a contact card", { contact: { name: "Acme", phoneNumbers: ["+14155550123"], email: "a@b.example" } }],
    ["a contact with no number", { contact: { name: "Acme", phoneNumbers: [] } }],
    ["a contact with a blank name", { contact: { name: " ", phoneNumbers: ["+14155550123"] } }],
    ["51 mentions", { content: "x", mentions: Array.from({ length: 51 }, (_, i) => `+1415555${1000 + i}`) }],
    ["a mention that is not E.164", { content: "x", mentions: ["bob"] }],
    ["a replyTo that is not a message id", { content: "x", replyTo: "abc" }],
  ]

  test.each(cases)("%s", async (_name, partial) => {
    const { key, phone } = await h.seedTenant()
    const body = { fromPhoneId: phone.phoneNumber, to: "+14155550199", ...partial }
    const res = await h.request("POST", "/v1/messages/send", { key, body })
    const ajv = new Ajv2020({ strict: false })
    const check = ajv.compile(doc.components.schemas.SendMessageRequest)
    expect({ schemaAccepts: check(body) }).toEqual({ schemaAccepts: res.status === 201 })
  })
})

describe("OpenAPI document: webhooks", () => {
  test("lists the eight events, each with the envelope, its data schema and the delivery headers", () => {
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_NAMES])
    for (const event of EVENT_NAMES) {
      const op = doc.webhooks[event].post
      const envelope = resolve(op.requestBody.content["application/json"].schema)
      expect(Object.keys(envelope.properties)).toEqual(["event", "timestamp", "data"])
      expect(envelope.properties.event.const).toBe(event)
      expect(envelope.properties.data.$ref).toMatch(/EventData$/)
      expect(op.parameters.map((p: any) => p.name)).toEqual(["X-Service-Event", "X-Service-Event-Id", "X-Service-Delivery-Attempt", "X-Service-Signature"])
      expect(op.parameters.find((p: any) => p.name === "X-Service-Signature").description).toContain("HMAC-SHA256")
    }
  })

  test("the streams' StreamEvent is every event's envelope, told apart by event, and both stream routes name it", () => {
    const union = doc.components.schemas.StreamEvent
    expect(union.anyOf.map((ref: { $ref: string }) => resolve(ref).properties.event.const)).toEqual([...EVENT_NAMES])
    expect(doc.paths["/v1/events"].get.description).toContain("`StreamEvent`")
    expect(doc.paths["/v1/events/ws"].get.description).toContain("`StreamEvent`")
    expect(doc.paths["/v1/events"].get.responses["200"].content["text/event-stream"]["x-itemSchema"]).toEqual({ $ref: "#/components/schemas/StreamEvent" })
    expect(doc.paths["/v1/events/ws"].get.responses["101"]["x-itemSchema"]).toEqual({ $ref: "#/components/schemas/StreamEvent" })
  })

  test("the admin API's event list is the catalogue's names, and the groups that take them", () => {
    const events = doc.components.schemas.CreateWebhookEndpointRequest.properties.events
    const [names, groups] = events.anyOf[1].items.anyOf.map((item: unknown) => resolve(item).enum)
    expect(names).toEqual([...EVENT_NAMES])
    expect(groups).toEqual([...EVENT_GROUPS])
    expect(groups).toContain("message.*")
  })
})

describe("the reference page at /swagger (@elysiajs/swagger's Scalar page)", () => {
  const page = async () => {
    const res = await h.app.handle(new Request("http://localhost/swagger"))
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/html")
    return res.text()
  }
  const configuration = (html: string) => JSON.parse(/data-configuration='([^']*)'/.exec(html)![1]!) as Record<string, unknown>

  test("names no other origin: its only file is the embedded Scalar bundle, served from /swagger/assets", async () => {
    const html = await page()
    expect(html).not.toMatch(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i)
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    expect(assets).toEqual([SCALAR_BUNDLE_PATH])
    const bundle = await h.app.handle(new Request(`http://localhost${SCALAR_BUNDLE_PATH}`))
    expect(bundle.status).toBe(200)
    expect(bundle.headers.get("content-type")).toContain("text/javascript")
    const js = await bundle.text()
    expect(js.length).toBeGreaterThan(1_000_000)
    // The standalone bundle mounts itself on the page's `#api-reference[data-configuration]` script.
    expect(js).toContain("#api-reference[data-configuration]")
  })

  test("tells Scalar to load our document and no fonts, telemetry, agent or proxy from elsewhere", async () => {
    const html = await page()
    const config = configuration(html)
    expect(config).toMatchObject({ spec: { url: "/swagger/json" }, withDefaultFonts: false, telemetry: false, agent: { disabled: true } })
    expect(config).not.toHaveProperty("proxyUrl")
    expect(html).toContain('data-url="/swagger/json"')
  })

  test("shows no link to an outside service: the \"Generate MCP\" button is switched off by the option the served bundle reads", async () => {
    const config = configuration(await page())
    expect(config).toMatchObject({ mcp: { disabled: true } })
    // The embedded Scalar hides the button exactly when this option is set (it shows it on a local URL otherwise).
    const js = await (await h.app.handle(new Request(`http://localhost${SCALAR_BUNDLE_PATH}`))).text()
    expect(js).toContain("Generate MCP")
    expect(js).toMatch(/\.mcp\?\.disabled/)
  })

  test("is titled and described by the document's info, intact inside the HTML attribute", async () => {
    const html = await page()
    expect(/<title>([^<]*)<\/title>/.exec(html)![1]).toBe(doc.info.title)
    const description = /name="description"\s+content="([^"]*)"/.exec(html)![1]
    expect(description).toBe(doc.info.description)
  })

  test("an unknown asset is a 404 envelope", async () => {
    const res = await h.request("GET", "/swagger/assets/nope.js")
    expect(res.status).toBe(404)
    expect(res.body.success).toBe(false)
  })
})

describe("the docs cost start-up nothing", () => {
  test("mounting them reads no route; the first request builds the document once; later ones reuse it", async () => {
    let reads = 0
    const app = new Elysia().use(
      docsRoutes({
        version: "1.2.3",
        routes: () => {
          reads++
          return h.app.routes
        },
      }),
    )
    expect(reads).toBe(0)
    expect((await app.handle(new Request("http://localhost/swagger"))).status).toBe(200)
    expect(reads).toBe(1)
    const first = await (await app.handle(new Request("http://localhost/swagger/json"))).json()
    const second = await (await app.handle(new Request("http://localhost/openapi.json"))).json()
    expect((await app.handle(new Request("http://localhost/swagger"))).status).toBe(200)
    expect(reads).toBe(1)
    expect(second).toEqual(first)
    expect((first as { info: { version: string } }).info.version).toBe("1.2.3")
  })
})
