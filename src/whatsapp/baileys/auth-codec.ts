/*
 * The JSON text of stored WhatsApp credentials and Signal keys, in exactly the format Baileys'
 * `BufferJSON` replacer writes and its reviver reads (bytes as `{"type":"Buffer","data":"<base64>"}`),
 * so rows written before and after this module read the same either way. BufferJSON does it
 * with a replacer and a reviver called for every value, and `Buffer.prototype.toJSON` turns each
 * byte into a JSON number first: for the 812 pre-keys of a first login that held the event loop
 * for 10 to 25 ms per phone (docs/performance.md § "Where a phone's time goes"). These
 * walk the value once instead and give the same text and the same values back.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** What BufferJSON's replacer makes of a value it treats as bytes (a Uint8Array or a `{type:"Buffer"}` object). */
function bytesJson(value: Uint8Array | { data?: unknown }): { type: "Buffer"; data: string } {
  if (value instanceof Uint8Array) return { type: "Buffer", data: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") }
  // The replacer's own rule for an object that already says it is a Buffer, kept as it is.
  const source = (value.data || value) as Parameters<typeof Buffer.from>[0]
  return { type: "Buffer", data: Buffer.from(source).toString("base64") }
}

/** The JSON-ready copy of `value` that JSON.stringify would build with BufferJSON's replacer. */
function toJsonTree(key: string, value: unknown): unknown {
  if (value === null || typeof value !== "object") return value
  if (value instanceof Uint8Array) return bytesJson(value)
  // JSON.stringify calls toJSON first (protobuf messages turn bytes into base64 strings there).
  const own = value as { toJSON?: (key: string) => unknown; type?: unknown }
  if (typeof own.toJSON === "function") return toJsonTree(key, own.toJSON(key))
  if (own.type === "Buffer") return bytesJson(own as { data?: unknown })
  if (Array.isArray(value)) return value.map((item, index) => toJsonTree(String(index), item))
  const out: Record<string, unknown> = {}
  for (const name of Object.keys(value)) out[name] = toJsonTree(name, (value as Record<string, unknown>)[name])
  return out
}

/** The stored JSON of a credentials object or a Signal key: the same text as `JSON.stringify(value, BufferJSON.replacer)`. */
export function encodeAuthValue(value: unknown): string {
  return JSON.stringify(toJsonTree("", value))
}

/** True for a non-empty object whose keys are all numbers, each holding a number: BufferJSON reads it as bytes. */
function isByteMap(value: Record<string, unknown>, keys: string[]): boolean {
  if (keys.length === 0) return false
  for (const name of keys) {
    if (Number.isNaN(Number.parseInt(name, 10)) || typeof value[name] !== "number") return false
  }
  return true
}

/** Revives `value` in place, children first, by BufferJSON's reviver rules. */
function revive(value: Json): unknown {
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item = value[index]!
      if (item !== null && typeof item === "object") value[index] = revive(item) as Json
    }
    return value
  }
  const keys = Object.keys(value)
  for (const name of keys) {
    const item = value[name]!
    if (item !== null && typeof item === "object") value[name] = revive(item) as Json
  }
  if (value.type === "Buffer" && typeof value.data === "string") return Buffer.from(value.data, "base64")
  if (isByteMap(value, keys)) return Buffer.from(keys.map((name) => value[name] as number))
  return value
}

/** Reads stored JSON back: the same value as `JSON.parse(text, BufferJSON.reviver)`. */
export function decodeAuthValue(text: string): unknown {
  return revive(JSON.parse(text) as Json)
}
