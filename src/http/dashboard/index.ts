import type { HttpDeps } from "../deps"
import { dashboardBase } from "./base"
import { createDashboard, page } from "./context"
import { accountsRoutes } from "./pages/accounts"
import { errorPage, notFoundPage } from "./pages/errors"
import { keysRoutes } from "./pages/keys"
import { messageRoutes } from "./pages/message"
import { messagesRoutes } from "./pages/messages"
import { nodesRoutes } from "./pages/nodes"
import { overviewRoutes } from "./pages/overview"
import { phoneRoutes } from "./pages/phone"
import { callPolicyRoutes } from "./pages/call-policy"
import { historySettingsRoutes } from "./pages/history-settings"
import { chatActionRoutes } from "./pages/chat-actions"
import { chatsRoutes } from "./pages/chats"
import { groupRoutes } from "./pages/group"
import { phonesRoutes } from "./pages/phones"
import { sandboxRoutes } from "./pages/sandbox"
import { sandboxSimulateRoutes } from "./pages/sandbox-simulate"
import { signInRoutes } from "./pages/sign-in"
import { usageRoutes } from "./pages/usage"
import { webhookRoutes } from "./pages/webhook"
import { webhooksRoutes } from "./pages/webhooks"

/**
 * The operator's dashboard at `/dashboard` (docs/dashboard.md): server-rendered pages on the
 * same domain functions as the admin API, behind a sign-in with the admin token.
 */
export function dashboardRoutes(deps: HttpDeps) {
  const dash = createDashboard(deps)
  return (
    dashboardBase()
      .use(signInRoutes(dash))
      .use(overviewRoutes(dash))
      .use(phonesRoutes(dash))
      .use(phoneRoutes(dash))
      .use(callPolicyRoutes(dash))
      .use(historySettingsRoutes(dash))
      .use(groupRoutes(dash))
      .use(keysRoutes(dash))
      .use(webhooksRoutes(dash))
      .use(webhookRoutes(dash))
      .use(messagesRoutes(dash))
      .use(messageRoutes(dash))
      .use(chatsRoutes(dash))
      .use(chatActionRoutes(dash))
      .use(sandboxRoutes(dash))
      .use(sandboxSimulateRoutes(dash))
      .use(usageRoutes(dash))
      .use(accountsRoutes(dash))
      .use(nodesRoutes(dash))
      // Last: any other dashboard address is a page-shaped 404 (or the sign-in page).
      .get("/dashboard/*", page(dash, notFoundPage, errorPage))
  )
}
