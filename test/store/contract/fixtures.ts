import type { AccountRow } from "../../../src/store/accounts"
import type { ApiKeyRow } from "../../../src/store/api-keys"
import type { PhoneRow } from "../../../src/store/phones"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import type { SeedRow } from "./stores"

/** Rows for the contract tests: valid by default, each field overridable. */

export const account = (over: Partial<AccountRow> = {}): AccountRow => ({
  id: "acc_1",
  name: "Acme",
  email: "ops@acme.test",
  subscriptionStatus: "active",
  rateLimitPerMinute: null,
  createdAtMs: TEST_EPOCH_MS,
  updatedAtMs: TEST_EPOCH_MS,
  ...over,
})

export const apiKey = (over: Partial<ApiKeyRow> = {}): ApiKeyRow => ({
  id: "key_1",
  accountId: "acc_1",
  env: "test",
  keyHash: `hash_${over.id ?? "key_1"}`,
  prefix: "wg_test_",
  last4: "abcd",
  name: "CI",
  scopes: ["messages:send", "messages:read"],
  createdAtMs: TEST_EPOCH_MS,
  lastUsedAtMs: null,
  expiresAtMs: null,
  revokedAtMs: null,
  ...over,
})

export const phone = (over: Partial<PhoneRow> = {}): PhoneRow => ({
  id: "ph_1",
  accountId: "acc_1",
  phoneNumber: "+15550000001",
  displayName: "Support",
  connectionStatus: "unpaired",
  lastConnectedAtMs: null,
  lastDisconnectedAtMs: null,
  createdAtMs: TEST_EPOCH_MS,
  updatedAtMs: TEST_EPOCH_MS,
  lastErrorCode: null,
  lastErrorMessage: null,
  lastErrorAtMs: null,
  offlineWatchdogAtMs: null,
  waVersion: null,
  clientExpiresAtMs: null,
  ...over,
})

/** A message row as its table holds it, for tests of groups that refer to messages. */
export const messageRow = (id: string, seq: number, over: SeedRow = {}): SeedRow => ({
  id,
  account_id: "acc_1",
  env: "live",
  seq,
  phone_id: "ph_1",
  api_key_id: "key_1",
  from_number: "+15550000001",
  to_address: "+15550000002",
  is_group: false,
  content: "hi",
  media_urls: "[]",
  status: "pending",
  request_fingerprint: "fp",
  created_at_ms: TEST_EPOCH_MS,
  updated_at_ms: TEST_EPOCH_MS,
  ...over,
})
