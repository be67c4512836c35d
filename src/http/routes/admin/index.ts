import type { HttpDeps } from "../../deps"
import { adminBase } from "../../plugins/admin-auth"
import { adminAccounts } from "./accounts"
import { adminKeys } from "./keys"
import { adminNodes } from "./nodes"
import { adminPairing } from "./pairing"
import { adminPhones } from "./phones"
import { adminWebhooks } from "./webhooks"
import { adminCallPolicy } from "./call-policy"
import { adminHistorySettings } from "./history-settings"

/** Every `/admin/v1` route, on the base that checks the admin token. */
export function adminRoutes(deps: HttpDeps) {
  return adminBase(deps).use(adminAccounts(deps)).use(adminKeys(deps)).use(adminPhones(deps)).use(adminPairing(deps)).use(adminWebhooks(deps)).use(adminNodes(deps)).use(adminCallPolicy(deps)).use(adminHistorySettings(deps))
}
