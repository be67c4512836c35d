import { Type, type TSchema } from "@sinclair/typebox"
import { named, NullableTimestamp, Timestamp } from "../../lib/schema"

export { NullableTimestamp, Timestamp }

/** The spec's error envelope. */
export const ErrorEnvelope = named(
  "Error",
  Type.Object(
    {
      success: Type.Literal(false),
      error: Type.String({ description: "The status's short title.", examples: ["Bad Request"] }),
      message: Type.Array(Type.String(), {
        minItems: 1,
        description: "One readable entry per problem, each naming the field.",
        examples: [["to must be an E.164 number (+ and 8–15 digits), a group JID or a …@lid JID"]],
      }),
      statusCode: Type.Integer({ examples: [400] }),
      timestamp: Timestamp,
      path: Type.String({ examples: ["/v1/messages/send"] }),
      retryAfter: Type.Optional(Type.Integer({ minimum: 1, description: "Only on 429: seconds to wait." })),
    },
    { description: "The error envelope of every failure." },
  ),
)
export type ErrorEnvelope = typeof ErrorEnvelope.static

/** `{success: true, data}` around a payload schema. */
export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data })
}

export const Pagination = named(
  "Pagination",
  Type.Object({
    page: Type.Integer({ minimum: 1, examples: [1] }),
    limit: Type.Integer({ minimum: 1, maximum: 100, examples: [20] }),
    total: Type.Integer({ minimum: 0, examples: [1] }),
    totalPages: Type.Integer({ minimum: 0, description: "ceil(total / limit)", examples: [1] }),
  }),
)

/** `{success: true, data: {data: Item[], pagination}}`. */
export function PageEnvelope<T extends TSchema>(item: T) {
  return Envelope(Type.Object({ data: Type.Array(item), pagination: Pagination }))
}

export const PageQueryFields = {
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1_000_000_000, default: 1, errorMessage: "page must be an integer >= 1" }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 20, errorMessage: "limit must be an integer between 1 and 100" }),
  ),
}

/** Wraps a payload in the success envelope. */
export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data }
}

/** Builds the paginated payload; totalPages = ceil(total / limit) (docs/decisions.md § "Errors and validation"). */
export function paginated<T>(items: T[], page: number, limit: number, total: number) {
  return ok({ data: items, pagination: { page, limit, total, totalPages: Math.ceil(total / limit) } })
}
