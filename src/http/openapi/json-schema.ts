import { Kind, type TSchema } from "@sinclair/typebox"
import { componentNameOf, domainRulesOf } from "../../lib/schema"

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
export type JsonObject = { [key: string]: Json }

/** Keywords that hold one subschema, a list of them, or a map of them. */
const ONE = new Set(["items", "not", "additionalProperties", "contains", "if", "then", "else"])
const LIST = new Set(["anyOf", "allOf", "oneOf", "prefixItems"])
const MAP = new Set(["properties", "patternProperties", "$defs"])
/** Our own keywords, read by the server's validation and never published. */
const PRIVATE = new Set(["errorMessage"])

/**
 * Turns TypeBox schemas into the OpenAPI 3.1 (JSON Schema 2020-12) objects of the published
 * document: named schemas go to `components.schemas` once and are referred to with `$ref`, our
 * private keywords are left out, the keywords the domain enforces are added, and a union of
 * string constants becomes one `enum`. TypeBox's symbols never reach JSON.
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonObject> = {}
  private readonly sources = new Map<string, TSchema>()

  /** The published form of `schema`, a `$ref` when it is a named component. */
  ref(schema: TSchema): JsonObject {
    const name = componentNameOf(schema)
    if (name === undefined) return this.convert(schema)
    const known = this.sources.get(name)
    if (known === undefined) {
      this.sources.set(name, schema)
      // Registered before converting, so a schema that refers to itself ends in a $ref.
      this.schemas[name] = {}
      this.schemas[name] = this.convert(schema)
    }
    return { $ref: `#/components/schemas/${name}` }
  }

  /** The published form of `schema` itself, named or not (its subschemas may be `$ref`s). */
  convert(schema: TSchema): JsonObject {
    const out: JsonObject = {}
    for (const [key, value] of Object.entries(schema)) {
      if (PRIVATE.has(key) || value === undefined) continue
      if (ONE.has(key) && isSchema(value)) out[key] = this.ref(value)
      else if (LIST.has(key) && Array.isArray(value)) out[key] = value.map((v) => this.ref(v as TSchema))
      else if (MAP.has(key) && isSchema(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([name, v]) => [name, this.ref(v as TSchema)]))
      } else out[key] = json(value)
    }
    const rules = domainRulesOf(schema)
    if (rules) for (const [key, value] of Object.entries(rules)) out[key] = this.rule(value)
    return collapseConstants(out)
  }

  /** A domain rule is plain JSON Schema that may hold TypeBox schemas (named ones become `$ref`s). */
  private rule(value: unknown): Json {
    if (Array.isArray(value)) return value.map((v) => this.rule(v))
    if (typeof value !== "object" || value === null) return json(value)
    if (Kind in value) return this.ref(value as TSchema)
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, this.rule(v)]))
  }
}

function isSchema(value: unknown): value is TSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

/** A plain JSON copy: symbol keys and undefined values dropped. */
function json(value: unknown): Json {
  return JSON.parse(JSON.stringify(value)) as Json
}

/** `anyOf` of string constants (TypeBox's union of literals) → `{type: "string", enum}`. */
function collapseConstants(schema: JsonObject): JsonObject {
  const members = schema.anyOf
  if (!Array.isArray(members) || members.length === 0) return schema
  const constants: string[] = []
  for (const m of members) {
    if (typeof m !== "object" || m === null || Array.isArray(m)) return schema
    const { const: value, type, ...rest } = m
    if (typeof value !== "string" || type !== "string" || Object.keys(rest).length > 0) return schema
    constants.push(value)
  }
  const { anyOf: _members, ...rest } = schema
  return { type: "string", enum: constants, ...rest }
}
