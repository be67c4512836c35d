import type { TObject, TSchema } from "@sinclair/typebox"
import { ErrorEnvelope } from "./models/common"

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Invalid body or query, or (live keys) the phone is not connected",
  401: "Missing, invalid, revoked or expired API key",
  403: "The key lacks the required scope, or (live keys) the subscription is inactive",
  404: "Not found in this account and environment",
  409: "Conflicts with an existing resource",
  413: "Body larger than 64 KiB",
  429: "Rate limit exceeded; retry after `retryAfter` seconds",
  502: "WhatsApp could not be reached; retry after a moment",
}

/** Route options that document a route in OpenAPI from the same TypeBox schemas that validate it. */
export function documented(options: {
  summary: string
  description?: string
  tag: string
  body?: TObject
  query?: TObject
  path?: TObject
  success: { status: number; schema: TSchema; description: string }
  errors: number[]
  security?: "apiKey" | "adminToken"
}) {
  const parameters = [
    ...paramsOf(options.path, "path"),
    ...paramsOf(options.query, "query"),
  ]
  const response: Record<number, TSchema> = { [options.success.status]: options.success.schema }
  for (const status of options.errors) response[status] = { ...ErrorEnvelope, description: ERROR_DESCRIPTIONS[status] ?? "Error" }
  return {
    detail: {
      summary: options.summary,
      description: options.description,
      tags: [options.tag],
      security: [{ [options.security ?? "apiKey"]: [] }],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(options.body ? { requestBody: { required: true, content: { "application/json": { schema: options.body } } } } : {}),
    },
    response,
  }
}

function paramsOf(schema: TObject | undefined, where: "query" | "path") {
  if (!schema) return []
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties).map(([name, s]) => {
    const { errorMessage: _e, description, ...rest } = s as TSchema & { errorMessage?: string; description?: string }
    return { name, in: where, required: where === "path" || required.has(name), description, schema: rest }
  })
}
