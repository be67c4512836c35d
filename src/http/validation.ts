import { Kind, type Static, type TObject, type TSchema } from "@sinclair/typebox"
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler"
import { ValueErrorType } from "@sinclair/typebox/errors"
import { errors } from "../lib/errors"
import { boundedOutsideText } from "../lib/outside-text"

/**
 * Request validation with messages a person can act on, one per problem and naming the field
 * (docs/decisions.md § "Errors and validation"). Each field schema carries its own sentence in `errorMessage`. Elysia's
 * built-in validation is not used for requests: it runs before authentication and hides its
 * details in production, and the spec wants 401/403 before 400 and readable messages always.
 */

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>()

function checker<T extends TSchema>(schema: T): TypeCheck<T> {
  let c = compiled.get(schema)
  if (!c) {
    c = TypeCompiler.Compile(schema)
    compiled.set(schema, c)
  }
  return c as TypeCheck<T>
}

const unknownFieldMessages = new WeakMap<TObject, Readonly<Record<string, string>>>()

/**
 * Gives fields a schema refuses their own explanation instead of "is not a recognised field":
 * a client who sends `environment` to /v1 should learn why it is not needed. Returns the schema.
 */
export function explainUnknownFields<T extends TObject>(schema: T, messages: Readonly<Record<string, string>>): T {
  unknownFieldMessages.set(schema, messages)
  return schema
}

/** The /v1 explanation: the environment is the API key's. */
export const ENVIRONMENT_FROM_KEY = { environment: "environment must not be sent: it is inferred from the API key" } as const

/**
 * A record's own entry, never one inherited from Object.prototype: a client may name a field
 * `constructor`, `toString` or `__proto__`, and `record[field]` would answer with a function or
 * the prototype itself.
 */
function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined
}

/** True when a request URL's query string has an `environment` parameter, however encoded. */
export function queryNamesEnvironment(url: string): boolean {
  const start = url.indexOf("?")
  return start !== -1 && new URLSearchParams(url.slice(start + 1)).has("environment")
}

/** Readable messages for every problem of `value` against an object schema, in field order. */
export function validationMessages(schema: TObject, value: unknown): string[] {
  const byField = new Map<string, string>()
  for (const error of checker(schema).Errors(value)) {
    const field = error.path.split("/")[1] ?? ""
    if (byField.has(field)) continue
    if (field === "") {
      byField.set(field, "must be a JSON object")
      continue
    }
    const fieldSchema = own(schema.properties, field) as (TSchema & { errorMessage?: string }) | undefined
    // A problem inside an object field (`location/zoom`) is that field's: its own message says what it takes.
    const nested = error.path.split("/").length > 2
    if (fieldSchema === undefined || (!nested && error.type === ValueErrorType.ObjectAdditionalProperties)) {
      byField.set(field, own(unknownFieldMessages.get(schema), field) ?? `${field} is not a recognised field`)
    } else if (!nested && error.type === ValueErrorType.ObjectRequiredProperty) {
      byField.set(field, `${field} is required`)
    } else if (itemMessage(fieldSchema, error.path) !== null) {
      byField.set(field, `${field}[${error.path.split("/")[2]}] ${itemMessage(fieldSchema, error.path)}: ${shownValue(error.value)}`)
    } else {
      byField.set(field, fieldSchema.errorMessage ?? `${field} is invalid`)
    }
  }
  const order = Object.keys(schema.properties)
  return [...byField.entries()]
    .sort(([a], [b]) => rank(order, a) - rank(order, b))
    .map(([field, message]) => (field === "" ? `Request ${message}` : message))
}

/**
 * The sentence of an array's item that has its own `errorMessage` (`is not an E.164 number`),
 * when the problem is that item itself (`/numbers/2`); null otherwise. Naming the item tells the
 * client which of fifty numbers to fix.
 */
function itemMessage(fieldSchema: TSchema, path: string): string | null {
  if (fieldSchema[Kind] !== "Array" || path.split("/").length !== 3) return null
  return (fieldSchema.items as (TSchema & { errorMessage?: string }) | undefined)?.errorMessage ?? null
}

/** A client's value as a message shows it: JSON, escaped and cut short (it may be anything). */
function shownValue(value: unknown): string {
  return boundedOutsideText(JSON.stringify(value) ?? String(value), SHOWN_VALUE_MAX_CHARS)
}

/** Enough for any E.164 number or id with room to spare; a value sent to fill the log is cut. */
const SHOWN_VALUE_MAX_CHARS = 40

function rank(order: string[], field: string): number {
  const i = order.indexOf(field)
  return i === -1 ? order.length : i
}

/** A body field a request may also send as a header (`Idempotency-Key` for `idempotencyKey`). */
export interface HeaderField {
  field: string
  header: string
  /** The header's value, or null when the request did not send it. */
  value: string | null
}

/**
 * Parses and validates a raw JSON body; throws a 400 AppError listing every problem. A
 * `fromHeader` field's header value is validated as if it were in the body; sent in both places
 * it must be the same.
 */
export function parseJsonBody<T extends TObject>(schema: T, raw: RawBody | undefined, fromHeader?: HeaderField): Static<T> {
  const value = readJsonObject(raw)
  if (!fromHeader || fromHeader.value === null) return check(schema, value)
  const { field, header } = fromHeader
  if (Object.hasOwn(value, field)) {
    if (value[field] !== fromHeader.value) throw errors.validation([`${header} header and ${field} differ`])
    return check(schema, value)
  }
  Object.defineProperty(value, field, { value: fromHeader.value, enumerable: true, writable: true, configurable: true })
  if (checker(schema).Check(value)) return value as Static<T>
  // Name the header the client actually sent in the field's message.
  const messages = validationMessages(schema, value).map((m) => (m.startsWith(`${field} `) ? `${header} header ${m.slice(field.length + 1)}` : m))
  throw errors.validation(messages)
}

function readJsonObject(raw: RawBody | undefined): Record<string, unknown> {
  if (!raw || raw.text.trim() === "") {
    throw errors.validation(["Request body is required (a JSON object)"])
  }
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(raw.contentType)) throw errors.unsupportedContentType()
  let value: unknown
  try {
    value = JSON.parse(raw.text)
  } catch {
    throw errors.invalidJson()
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw errors.bodyNotObject()
  return value as Record<string, unknown>
}

/**
 * Validates a query string object. Integer fields are converted from their text first, and only
 * exact integers are: "1.5" or "abc" stay text and fail with the field's message.
 */
export function parseQuery<T extends TObject>(schema: T, query: Record<string, string | string[] | undefined>): Static<T> {
  const value: Record<string, unknown> = {}
  const unencodedPlus: string[] = []
  for (const [key, raw] of Object.entries(query)) {
    const text = Array.isArray(raw) ? raw.at(-1) : raw
    const fieldSchema = own(schema.properties, key) as TSchema | undefined
    if (text !== undefined && UNENCODED_PLUS_NUMBER.test(text)) unencodedPlus.push(key)
    // defineProperty keeps a parameter named `__proto__` an ordinary field (assignment would set the prototype).
    Object.defineProperty(value, key, {
      value: fieldSchema?.[Kind] === "Integer" && text !== undefined && /^-?\d{1,15}$/.test(text) ? Number(text) : text,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  if (unencodedPlus.length > 0) {
    throw errors.validation(unencodedPlus.map((key) => `${key}: a + in a query string must be sent encoded as %2B (it arrived as a space)`))
  }
  return check(schema, value)
}

/**
 * An E.164 number whose `+` was sent unencoded: in a query string `+` means a space, so
 * `?phoneNumberId=+14155550123` arrives as " 14155550123" and would silently match nothing.
 */
const UNENCODED_PLUS_NUMBER = /^ \d{6,15}$/

function check<T extends TObject>(schema: T, value: unknown): Static<T> {
  if (checker(schema).Check(value)) return value as Static<T>
  throw errors.validation(validationMessages(schema, value))
}

/** A request body as read from the wire, before parsing. */
export interface RawBody {
  text: string
  contentType: string
}
