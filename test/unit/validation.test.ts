import { describe, expect, test } from "bun:test"
import { Type } from "@sinclair/typebox"
import { AppError } from "../../src/lib/errors"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields, parseJsonBody, parseQuery, validationMessages } from "../../src/http/validation"

const SendFields = {
  to: Type.String({ pattern: "^\\+[1-9][0-9]{7,14}$", errorMessage: "to must be an E.164 number" }),
  content: Type.String({ maxLength: 10, errorMessage: "content must be at most 10 characters" }),
  mediaUrls: Type.Optional(Type.Array(Type.String({ maxLength: 20 }), { maxItems: 2, errorMessage: "mediaUrls must be at most 2 short URLs" })),
  note: Type.Optional(Type.String({ minLength: 1 })),
}
const Send = explainUnknownFields(Type.Object(SendFields, { additionalProperties: false }), ENVIRONMENT_FROM_KEY)
/** The same fields without explanations, as an admin schema would have them. */
const PlainSend = Type.Object(SendFields, { additionalProperties: false })

const Page = explainUnknownFields(
  Type.Object(
    {
      page: Type.Optional(Type.Integer({ minimum: 1, errorMessage: "page must be an integer >= 1" })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, errorMessage: "limit must be an integer between 1 and 100" })),
      status: Type.Optional(Type.Union([Type.Literal("sent"), Type.Literal("read")], { errorMessage: "status must be sent or read" })),
    },
    { additionalProperties: false },
  ),
  ENVIRONMENT_FROM_KEY,
)

/** Runs `fn`, expecting a 400 AppError, and returns its public messages. */
function badRequest(fn: () => unknown): string[] {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(AppError)
    expect((err as AppError).kind).toBe("bad_request")
    return (err as AppError).publicMessages
  }
  throw new Error("expected a 400 AppError, but nothing was thrown")
}

describe("validationMessages", () => {
  test("a schema without explanations calls environment an unknown field like any other", () => {
    expect(validationMessages(PlainSend, { to: "+14155550199", content: "hi", environment: "live" })).toEqual(["environment is not a recognised field"])
  })

  test.each<{ name: string; body: unknown; messages: string[] }>([
    { name: "a valid body has no messages", body: { to: "+14155550199", content: "hi" }, messages: [] },
    { name: "a missing required field", body: { content: "hi" }, messages: ["to is required"] },
    { name: "two missing required fields, in schema order", body: {}, messages: ["to is required", "content is required"] },
    { name: "a field's own errorMessage", body: { to: "12345", content: "hi" }, messages: ["to must be an E.164 number"] },
    { name: "a wrong type uses the field's errorMessage", body: { to: 14155550199, content: "hi" }, messages: ["to must be an E.164 number"] },
    {
      name: "one message per field even with several problems in it",
      body: { to: "+14155550199", content: "hi", mediaUrls: ["a".repeat(30), "b".repeat(30), "c"] },
      messages: ["mediaUrls must be at most 2 short URLs"],
    },
    { name: "a nested problem is reported on its top-level field", body: { to: "+14155550199", content: "hi", mediaUrls: [1] }, messages: ["mediaUrls must be at most 2 short URLs"] },
    { name: "a field without errorMessage gets a generic sentence", body: { to: "+14155550199", content: "hi", note: "" }, messages: ["note is invalid"] },
    { name: "an unknown field", body: { to: "+14155550199", content: "hi", extra: 1 }, messages: ["extra is not a recognised field"] },
    {
      name: "environment gets its own explanation",
      body: { to: "+14155550199", content: "hi", environment: "live" },
      messages: ["environment must not be sent: it is inferred from the API key"],
    },
    {
      name: "every problem at once: known fields in schema order, then unknown ones as sent",
      body: { zzz: true, content: "x".repeat(11), environment: "test", to: "nope" },
      messages: [
        "to must be an E.164 number",
        "content must be at most 10 characters",
        "zzz is not a recognised field",
        "environment must not be sent: it is inferred from the API key",
      ],
    },
  ])("$name", ({ body, messages }) => {
    expect(validationMessages(Send, body)).toEqual(messages)
  })

  test.each([
    { name: "a string", value: "hello" },
    { name: "null", value: null },
    { name: "an array", value: [] },
  ])("a non-object ($name) is reported once for the whole request", ({ value }) => {
    expect(validationMessages(Send, value)).toEqual(["Request must be a JSON object"])
  })
})

describe("parseJsonBody", () => {
  const json = (text: string, contentType = "application/json") => ({ text, contentType })

  test("returns the parsed body when valid", () => {
    expect(parseJsonBody(Send, json('{"to":"+14155550199","content":"hi"}'))).toEqual({ to: "+14155550199", content: "hi" })
  })

  test.each([
    { name: "application/json with a charset", contentType: "application/json; charset=utf-8" },
    { name: "upper-case media type", contentType: "Application/JSON" },
    { name: "a +json structured suffix", contentType: "application/vnd.api+json" },
  ])("accepts $name", ({ contentType }) => {
    expect(parseJsonBody(Send, json('{"to":"+14155550199","content":"hi"}', contentType)).to).toBe("+14155550199")
  })

  test.each([
    { name: "no body at all", raw: undefined, message: "Request body is required (a JSON object)" },
    { name: "an empty body", raw: json(""), message: "Request body is required (a JSON object)" },
    { name: "a blank body", raw: json("  \n"), message: "Request body is required (a JSON object)" },
    { name: "text/plain", raw: json('{"to":"+14155550199"}', "text/plain"), message: "Content-Type must be application/json" },
    { name: "form encoding", raw: json("to=1", "application/x-www-form-urlencoded"), message: "Content-Type must be application/json" },
    { name: "no content type", raw: json('{"to":"+14155550199"}', ""), message: "Content-Type must be application/json" },
    { name: "a look-alike type", raw: json("{}", "application/jsonp"), message: "Content-Type must be application/json" },
    { name: "malformed JSON", raw: json('{"to":'), message: "Request body must be valid JSON" },
    { name: "a JSON array", raw: json("[]"), message: "Request body must be a JSON object" },
    { name: "JSON null", raw: json("null"), message: "Request body must be a JSON object" },
    { name: "a JSON string", raw: json('"hi"'), message: "Request body must be a JSON object" },
  ])("rejects $name", ({ raw, message }) => {
    expect(badRequest(() => parseJsonBody(Send, raw))).toEqual([message])
  })

  test("an invalid object lists every problem", () => {
    expect(badRequest(() => parseJsonBody(Send, json('{"environment":"live","content":5}')))).toEqual([
      "to is required",
      "content must be at most 10 characters",
      "environment must not be sent: it is inferred from the API key",
    ])
  })
})

describe("parseQuery", () => {
  test.each<{ name: string; query: Record<string, string | string[]>; value: Record<string, unknown> }>([
    { name: "nothing", query: {}, value: {} },
    { name: "integers are converted", query: { page: "2", limit: "100" }, value: { page: 2, limit: 100 } },
    { name: "leading zeros are still the integer", query: { page: "007" }, value: { page: 7 } },
    { name: "a repeated parameter keeps the last value", query: { page: ["1", "3"] }, value: { page: 3 } },
    { name: "a text field is kept as text", query: { status: "read" }, value: { status: "read" } },
  ])("accepts $name", ({ query, value }) => {
    expect(parseQuery(Page, query)).toEqual(value)
  })

  test.each<{ name: string; query: Record<string, string>; messages: string[] }>([
    { name: "page 0", query: { page: "0" }, messages: ["page must be an integer >= 1"] },
    { name: "a negative page", query: { page: "-1" }, messages: ["page must be an integer >= 1"] },
    { name: "a decimal page 1.5", query: { page: "1.5" }, messages: ["page must be an integer >= 1"] },
    { name: "page abc", query: { page: "abc" }, messages: ["page must be an integer >= 1"] },
    { name: "an empty page", query: { page: "" }, messages: ["page must be an integer >= 1"] },
    { name: "an exponent", query: { page: "1e3" }, messages: ["page must be an integer >= 1"] },
    { name: "a plus sign", query: { page: "+2" }, messages: ["page must be an integer >= 1"] },
    { name: "surrounding spaces", query: { page: " 2" }, messages: ["page must be an integer >= 1"] },
    { name: "hex", query: { page: "0x10" }, messages: ["page must be an integer >= 1"] },
    { name: "limit 101 is refused, not clamped", query: { limit: "101" }, messages: ["limit must be an integer between 1 and 100"] },
    { name: "limit 0", query: { limit: "0" }, messages: ["limit must be an integer between 1 and 100"] },
    { name: "an unknown status", query: { status: "pending" }, messages: ["status must be sent or read"] },
    { name: "an unknown parameter", query: { sort: "asc" }, messages: ["sort is not a recognised field"] },
    { name: "environment", query: { environment: "live" }, messages: ["environment must not be sent: it is inferred from the API key"] },
    {
      name: "several problems",
      query: { limit: "abc", page: "0", foo: "1" },
      messages: ["page must be an integer >= 1", "limit must be an integer between 1 and 100", "foo is not a recognised field"],
    },
  ])("rejects $name", ({ query, messages }) => {
    expect(badRequest(() => parseQuery(Page, query))).toEqual(messages)
  })

  test("a number too large to be exact is not converted", () => {
    expect(badRequest(() => parseQuery(Page, { page: "99999999999999999999" }))).toEqual(["page must be an integer >= 1"])
  })
})
