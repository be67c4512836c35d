import type { TObject, TSchema } from "@sinclair/typebox"
import type { DocumentDecoration } from "elysia"
import type { Scope } from "../../domain/scopes"
import { API_KEY_HEADERS, errorResponseName, headerRefs, type ErrorStatus, type Family } from "./components"

/**
 * Route options that document a route in OpenAPI from the same TypeBox schemas that validate it.
 * The `detail` holds an OpenAPI operation whose `schema` positions are still TypeBox schemas;
 * the document builder (./document.ts) publishes them. `response` lets Elysia check what the
 * route returns against the schema it documents.
 */
export interface OperationOptions {
  /** A camelCase name that client generators turn into a method name. */
  operationId: string
  tag: string
  summary: string
  description?: string
  body?: TObject
  /** Named examples of the request body (OpenAPI's `examples` of its media type). */
  bodyExamples?: Readonly<Record<string, { summary: string; value: unknown }>>
  query?: TObject
  path?: TObject
  /** Request headers the operation reads, as a TypeBox object of header names. */
  headers?: TObject
  success: Outcome & {
    /** Response headers beyond the family's own (names of components.headers). */
    headers?: readonly string[]
  }
  /** Other answers that are not the error envelope (a readiness probe's 503). */
  others?: readonly Outcome[]
  /** Error statuses besides 500, which every operation documents (and 413 with a body). */
  errors: readonly ErrorStatus[]
}

interface Outcome {
  status: number
  /** The body's schema; none for an answer without a body (204). */
  schema?: TSchema
  description: string
  /** application/json unless said otherwise. */
  contentType?: string
}

/** A /v1 operation: an API key holding any one of `scopes` (the same list the route enforces). */
export function apiOperation<const S extends readonly Scope[]>(options: OperationOptions & { scopes: S }) {
  // OpenAPI reads a list of requirements as "any one of these": one requirement per accepted scope.
  const security = options.scopes.map((scope) => ({ apiKey: [scope] }))
  return { scopes: options.scopes, ...describe(options, "Api", security, API_KEY_HEADERS) }
}

/** An /admin/v1 operation: the admin token. */
export function adminOperation(options: OperationOptions) {
  return describe(options, "Admin", [{ adminToken: [] }], [])
}

/**
 * An operations endpoint outside the APIs: open, or behind the admin token unless the operator
 * made it public (then the empty requirement `{}` says "no authentication" is one option).
 * Their answers are constants, so Elysia is not asked to check them: the check would compile
 * a TypeBox validator at the first probe, the one a restart waits for (docs/performance.md §
 * "Start-up and sends, 2026-11-23 (evening)"); test/http covers their shapes.
 */
export function opsOperation(options: OperationOptions & { auth: "none" | "adminTokenUnlessPublic" }) {
  const { detail } = describe(options, "Admin", options.auth === "none" ? [] : [{ adminToken: [] }, {}], [])
  return { detail }
}

function describe(options: OperationOptions, family: Family, security: Record<string, string[]>[], familyHeaders: readonly string[]) {
  const parameters = [...parametersOf(options.path, "path"), ...parametersOf(options.query, "query"), ...parametersOf(options.headers, "header")]
  const headers = [...familyHeaders, ...(options.success.headers ?? [])]
  const responses: Record<string, unknown> = {
    [options.success.status]: {
      ...outcome(options.success),
      ...(headers.length > 0 ? { headers: headerRefs(headers) } : {}),
    },
  }
  for (const other of options.others ?? []) responses[other.status] = outcome(other)
  const errors = new Set<ErrorStatus>([...options.errors, ...(options.body ? ([400, 413] as const) : []), 500])
  for (const status of [...errors].sort()) {
    responses[status] = { $ref: `#/components/responses/${errorResponseName(family, status)}` }
  }
  const detail = {
    operationId: options.operationId,
    summary: options.summary,
    ...(options.description === undefined ? {} : { description: options.description }),
    tags: [options.tag],
    security,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(options.body
      ? { requestBody: { required: true, content: { "application/json": { schema: options.body, ...(options.bodyExamples ? { examples: options.bodyExamples } : {}) } } } }
      : {}),
    responses,
  } as DocumentDecoration
  // Elysia checks a JSON answer against its schema; other answers are streams or text it does not parse.
  const json = (options.success.contentType ?? JSON_TYPE) === JSON_TYPE && options.success.schema !== undefined
  return { detail, response: json ? { [options.success.status]: options.success.schema! } : {} }
}

const JSON_TYPE = "application/json"

function outcome(o: Outcome) {
  if (o.schema === undefined) return { description: o.description }
  return { description: o.description, content: { [o.contentType ?? JSON_TYPE]: { schema: o.schema } } }
}

/** One parameter per property; its description moves to the parameter, as OpenAPI wants it. */
function parametersOf(schema: TObject | undefined, where: "query" | "path" | "header") {
  if (!schema) return []
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties).map(([name, property]) => {
    const { description, ...rest } = property as TSchema & { description?: string }
    return {
      name,
      in: where,
      required: where === "path" || required.has(name),
      ...(description === undefined ? {} : { description }),
      schema: rest as TSchema,
    }
  })
}
