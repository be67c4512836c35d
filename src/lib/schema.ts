import { Type, type SchemaOptions, type TLiteral, type TSchema, type TUnion } from "@sinclair/typebox"

/**
 * Shared TypeBox vocabulary for every layer that declares a shape: the API models (http) and the
 * webhook event catalogue (domain). TypeBox is the single source of truth; the OpenAPI document
 * is generated from these schemas (docs/api.md § "OpenAPI").
 */

const componentName = Symbol.for("wagate.schema.component")
const domainRules = Symbol.for("wagate.schema.domainRules")

type Tagged = TSchema & { [componentName]?: string; [domainRules]?: Readonly<Record<string, unknown>> }

/**
 * Names a schema: the OpenAPI document publishes it once in `components.schemas` under this
 * name and refers to it with `$ref` wherever it appears. The tag is a symbol, so it never reaches
 * JSON and the validators ignore it. Returns the same schema.
 */
export function named<T extends TSchema>(name: string, schema: T): T {
  ;(schema as Tagged)[componentName] = name
  return schema
}

/** The component name of a schema, when it has one. */
export function componentNameOf(schema: TSchema): string | undefined {
  return (schema as Tagged)[componentName]
}

/**
 * Declares JSON Schema keywords that the domain enforces with its own messages (for example a
 * length counted in Unicode code points, or a rule spanning two fields) rather than the shape
 * check: the published schema carries them, so a validating proxy refuses what the server
 * refuses, while the shape check leaves them to the domain. Returns the same schema.
 */
export function withDomainRules<T extends TSchema>(schema: T, rules: Readonly<Record<string, unknown>>): T {
  ;(schema as Tagged)[domainRules] = rules
  return schema
}

/** The keywords `withDomainRules` attached, when any. */
export function domainRulesOf(schema: TSchema): Readonly<Record<string, unknown>> | undefined {
  return (schema as Tagged)[domainRules]
}

/** ISO 8601 UTC timestamp with milliseconds. */
export const Timestamp = Type.String({ format: "date-time", examples: ["2026-11-22T10:15:30.123Z"] })
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()])

/** `T | null`. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()])
}

type Literals<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> }

/** One of a closed set of strings (published as one `enum`). */
export function OneOf<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnion<Literals<T>> {
  return Type.Union(values.map((v) => Type.Literal(v)) as TSchema[] as Literals<T>, options) as TUnion<Literals<T>>
}
