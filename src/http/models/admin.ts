import { Type } from "@sinclair/typebox"
import type { AccountProfile } from "../../domain/accounts"
import { ALL_SCOPES } from "../../domain/scopes"
import { E164_PATTERN } from "../../lib/formats"
import { adminAccountView, adminPhoneView, apiKeyView } from "../../domain/api-views"
import type { ApiKeyRow } from "../../store/api-keys"
import { named, OneOf } from "../../lib/schema"
import { ENVIRONMENTS } from "../../lib/vocabulary"
import type { PhoneRow } from "../../store/phones"
import { AccountFields } from "./account"
import { NullableTimestamp, Timestamp } from "./common"
import { LastError } from "./pairing"
import { PhoneNumber } from "./phones"

const EMAIL_PATTERN = "^[^@\\s]+@[^@\\s]+$"
const RateLimit = Type.Integer({ minimum: 1, maximum: 1_000_000 })

export const AdminAccount = named(
  "AdminAccount",
  Type.Object({
    ...AccountFields,
    rateLimitPerMinute: Type.Union([RateLimit, Type.Null()], { description: "Requests per minute per key; null = the server default." }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
)

/** The operator's view of an account: stats count messages of both environments. */
export function toAdminAccount(profile: AccountProfile): typeof AdminAccount.static {
  return adminAccountView(profile)
}

export const CreateAccountBody = named(
  "CreateAccountRequest",
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 200, errorMessage: "name must be 1–200 characters" }),
      email: Type.String({ pattern: EMAIL_PATTERN, maxLength: 320, errorMessage: "email must be an e-mail address" }),
    },
    { additionalProperties: false },
  ),
)

export const UpdateAccountBody = named("UpdateAccountRequest", Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, errorMessage: "name must be 1–200 characters" })),
    email: Type.Optional(Type.String({ pattern: EMAIL_PATTERN, maxLength: 320, errorMessage: "email must be an e-mail address" })),
    subscriptionStatus: Type.Optional(
      Type.Union([Type.Literal("active"), Type.Literal("inactive")], {
        errorMessage: "subscriptionStatus must be active or inactive",
      }),
    ),
    rateLimitPerMinute: Type.Optional(
      Type.Union([RateLimit, Type.Null()], {
        errorMessage: "rateLimitPerMinute must be an integer between 1 and 1000000, or null for the default",
      }),
    ),
  },
  { additionalProperties: false },
))

export const Environment = named(
  "Environment",
  OneOf(ENVIRONMENTS, {
    description: "test: the sandbox (sk_test_ keys); live: WhatsApp (sk_live_ keys).",
    errorMessage: `environment must be ${ENVIRONMENTS.join(" or ")}`,
  }),
)

export const ApiKeyRecord = named("ApiKey", Type.Object({
  id: Type.String({ examples: ["key_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
  accountId: Type.String(),
  name: Type.String(),
  environment: Environment,
  scopes: Type.Array(Type.String()),
  prefix: Type.String({ examples: ["sk_test_4fQz"], description: "The first characters of the key, to recognise it." }),
  last4: Type.String(),
  createdAt: Timestamp,
  lastUsedAt: NullableTimestamp,
  expiresAt: NullableTimestamp,
  revokedAt: NullableTimestamp,
}))

/** The operator's view of a key record; never the key or its hash. */
export function toApiKeyRecord(row: ApiKeyRow): typeof ApiKeyRecord.static {
  return apiKeyView(row)
}

export const CreatedApiKey = named(
  "CreatedApiKey",
  Type.Composite([ApiKeyRecord, Type.Object({ key: Type.String({ description: "The key itself. Shown only in this response." }) })]),
)

export const CreateKeyBody = named("CreateApiKeyRequest", Type.Object(
  {
    environment: Environment,
    scopes: Type.Array(Type.Union(ALL_SCOPES.map((s) => Type.Literal(s))), {
      minItems: 1,
      errorMessage: `scopes must be a non-empty array of: ${ALL_SCOPES.join(", ")}`,
    }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, errorMessage: "name must be 1–200 characters" })),
    expiresAt: Type.Optional(
      Type.String({ format: "date-time", errorMessage: "expiresAt must be an ISO 8601 timestamp, for example 2027-01-01T00:00:00Z" }),
    ),
  },
  { additionalProperties: false },
))

/** The operator's view of a phone: the /v1 phone plus why its last connect failed. */
export const AdminPhone = named("AdminPhone", Type.Composite([PhoneNumber, Type.Object({ lastError: LastError })]))

export function toAdminPhone(row: PhoneRow): typeof AdminPhone.static {
  return adminPhoneView(row)
}

export const AddPhoneBody = named("AddPhoneNumberRequest", Type.Object(
  {
    phoneNumber: Type.String({ pattern: E164_PATTERN, errorMessage: "phoneNumber must be an E.164 number (+ and 8–15 digits)" }),
    displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 200, errorMessage: "displayName must be 1–200 characters" })),
  },
  { additionalProperties: false },
))
