import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { createHarness, type Harness } from "../helpers/harness"

let h: Harness
let doc: any
beforeAll(async () => {
  h = await createHarness()
  doc = (await h.request("GET", "/swagger/json")).body
})
afterAll(() => h.close())

const V1_OPERATIONS: [string, string, number][] = [
  ["post", "/v1/messages/send", 201],
  ["get", "/v1/messages", 200],
  ["get", "/v1/messages/{messageId}", 200],
  ["get", "/v1/messages/inbound", 200],
  ["get", "/v1/messages/inbound/{messageId}", 200],
  ["get", "/v1/groups", 200],
  ["get", "/v1/phone-numbers", 200],
  ["get", "/v1/phone-numbers/{id}", 200],
  ["get", "/v1/phone-numbers/{id}/status", 200],
  ["get", "/v1/account", 200],
  ["get", "/v1/account/usage", 200],
]

describe("OpenAPI at /swagger/json", () => {
  test("documents exactly the spec's /v1 operations", () => {
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith("/v1"))
      .flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`))
      .sort()
    expect(documented).toEqual(V1_OPERATIONS.map(([m, p]) => `${m} ${p}`).sort())
  })

  test.each(V1_OPERATIONS)("%s %s has its success schema, error envelopes, examples and bearer security", (method, path, ok) => {
    const op = doc.paths[path][method]
    const success = op.responses[String(ok)].content["application/json"].schema
    expect(success.properties.success).toBeDefined()
    expect(success.properties.data).toBeDefined()
    for (const status of ["401", "403", "429"]) {
      const schema = op.responses[status].content["application/json"].schema
      expect(Object.keys(schema.properties)).toEqual(["success", "error", "message", "statusCode", "timestamp", "path", "retryAfter"])
    }
    expect(JSON.stringify(success)).toContain('"examples"')
    expect(op.security).toEqual([{ apiKey: [] }])
    expect(op.summary.length).toBeGreaterThan(5)
  })

  test("the send operation documents its request body with every field", () => {
    const body = doc.paths["/v1/messages/send"].post.requestBody.content["application/json"].schema
    expect(Object.keys(body.properties)).toEqual(["fromPhoneId", "to", "content", "mediaUrls", "idempotencyKey"])
    expect(body.required).toEqual(["fromPhoneId", "to"])
    expect(body.additionalProperties).toBe(false)
  })

  test("list operations document their query parameters", () => {
    const params = doc.paths["/v1/messages"].get.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)
    expect(params).toEqual(["query:phoneNumberId", "query:status", "query:page", "query:limit"])
    const phone = doc.paths["/v1/phone-numbers/{id}"].get.parameters
    expect(phone).toEqual([expect.objectContaining({ name: "id", in: "path", required: true })])
  })

  test("the Swagger UI is served at /swagger", async () => {
    const res = await h.app.handle(new Request("http://localhost/swagger"))
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/html")
  })
})
