import type { HttpDeps } from "../../deps"
import { apiBase, type ApiApp } from "../../plugins/api-auth"
import { accountGet } from "./account-get"
import { accountUsage } from "./account-usage"
import { contactsCheck } from "./contacts-check"
import { contactsBlock } from "./contacts-block"
import { contactsProfile } from "./contacts-profile"
import { presenceSend } from "./presence-send"
import { callsReject } from "./calls-reject"
import { inboundRead } from "./inbound-read"
import { messagesEdit } from "./messages-edit"
import { messagesReact } from "./messages-react"
import { messagesRevoke } from "./messages-revoke"
import { groupsList } from "./groups-list"
import { groupsCreate } from "./groups-create"
import { groupsGet } from "./groups-get"
import { groupsUpdate } from "./groups-update"
import { groupsParticipants } from "./groups-participants"
import { groupsInviteGet } from "./groups-invite-get"
import { groupsInviteRevoke } from "./groups-invite-revoke"
import { groupsJoin } from "./groups-join"
import { groupsLeave } from "./groups-leave"
import { inboundGet } from "./inbound-get"
import { inboundMedia } from "./inbound-media"
import { inboundList } from "./inbound-list"
import { messagesGet } from "./messages-get"
import { pollsGet } from "./polls-get"
import { pollsVote } from "./polls-vote"
import { messagesList } from "./messages-list"
import { messagesSend } from "./messages-send"
import { phoneNumbersGet } from "./phone-numbers-get"
import { phoneNumbersList } from "./phone-numbers-list"
import { phoneNumbersStatus } from "./phone-numbers-status"
import { pictureRoutes } from "./pictures"
import { sandboxCalls } from "./sandbox-calls"
import { sandboxInbound } from "./sandbox-inbound"
import { chatsList } from "./chats-list"
import { chatsMessages } from "./chats-messages"
import { chatsUpdate } from "./chats-update"
import { contactsList } from "./contacts-list"
import { labelsList } from "./labels-list"
import { labelsCreate } from "./labels-create"
import { chatsLabels } from "./chats-labels"
import { chatsMedia } from "./chats-media"
import { eventsStream } from "./events-stream"
import { eventsWs } from "./events-ws"

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
    // The groups API; the static /groups/join before /groups/:groupId.
    .use(untyped(deps, [groupsCreate, groupsJoin, groupsGet, groupsUpdate, groupsParticipants, groupsInviteGet, groupsInviteRevoke, groupsLeave]))
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
    .use(untyped(deps, [pollsGet, pollsVote, callsReject]))
    .use(pictureRoutes(deps))
    // Blocking and contact profiles (docs/api.md § "Blocking" and docs/api.md § "Contact profiles").
    .use(untyped(deps, [contactsBlock, contactsProfile]))
    // The sandbox answering back (docs/api.md § "Sandbox inbound and calls").
    .use(untyped(deps, [sandboxInbound, sandboxCalls]))
    // Chats and contacts (docs/api.md § "Chats and contacts").
    .use(untyped(deps, [chatsList, chatsMessages, chatsUpdate, contactsList, labelsList]))
    // Labels made and put on chats (docs/api.md § "Labels").
    .use(untyped(deps, [labelsCreate, chatsLabels]))
    // A timeline entry's media (docs/api.md § "Chats and contacts").
    .use(untyped(deps, [chatsMedia]))
    // Event streams (docs/webhooks.md § "Streams").
    .use(untyped(deps, [eventsStream, eventsWs]))
}

/**
 * Routes registered as one plugin typed as the base app. Chaining each route's own type into
 * `v1Routes` makes TypeScript's instantiation of the app too deep (TS2589) past about thirty
 * routes; nothing reads these routes' types from the app (the OpenAPI document and the typed
 * client are built from their schemas).
 */
function untyped(deps: HttpDeps, routes: readonly ((deps: HttpDeps) => (app: ApiApp) => unknown)[]) {
  return (app: ApiApp): ApiApp => routes.reduce((acc, route) => route(deps)(acc) as ApiApp, app)
}
