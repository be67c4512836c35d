import type { HttpDeps } from "../../deps"
import { apiBase } from "../../plugins/api-auth"
import { accountGet } from "./account-get"
import { accountUsage } from "./account-usage"
import { contactsCheck } from "./contacts-check"
import { contactsBlock } from "./contacts-block"
import { contactsProfile } from "./contacts-profile"
import { presenceSend } from "./presence-send"
import { inboundRead } from "./inbound-read"
import { messagesEdit } from "./messages-edit"
import { messagesReact } from "./messages-react"
import { messagesRevoke } from "./messages-revoke"
import { groupsList } from "./groups-list"
import { inboundGet } from "./inbound-get"
import { inboundMedia } from "./inbound-media"
import { inboundList } from "./inbound-list"
import { messagesGet } from "./messages-get"
import { messagesList } from "./messages-list"
import { messagesSend } from "./messages-send"
import { phoneNumbersGet } from "./phone-numbers-get"
import { phoneNumbersList } from "./phone-numbers-list"
import { phoneNumbersStatus } from "./phone-numbers-status"

/**
 * Every `/v1` route, on the base that authenticates API keys. A new route is added here and to
 * the scope matrix of test/http/auth-and-scopes.test.ts, which fails while one is missing. The
 * static `/messages/inbound` routes come before `/messages/:id`.
 */
export function v1Routes(deps: HttpDeps) {
  return apiBase(deps)
    .use(messagesSend(deps))
    .use(messagesList(deps))
    .use(inboundList(deps))
    .use(inboundGet(deps))
    .use(inboundMedia(deps))
    .use(messagesGet(deps))
    .use(groupsList(deps))
    .use(phoneNumbersList(deps))
    .use(phoneNumbersGet(deps))
    .use(phoneNumbersStatus(deps))
    .use(accountGet(deps))
    .use(accountUsage(deps))
    .use(contactsCheck(deps))
    .use(presenceSend(deps))
    .use(inboundRead(deps))
    .use(messagesReact(deps))
    .use(messagesEdit(deps))
    .use(messagesRevoke(deps))
    // Blocking and contact profiles (docs/api.md § "Blocking" and docs/api.md § "Contact profiles").
    .use(contactsBlock(deps))
    .use(contactsProfile(deps))
}
