import { principalOfKey, type Principal } from "../../../domain/api-keys"
import { simulateCall } from "../../../domain/sandbox-calls"
import { simulateInbound } from "../../../domain/sandbox-inbound"
import { errors } from "../../../lib/errors"
import { SandboxCallBody, SandboxInboundBody } from "../../models/sandbox"
import type { DashboardApp } from "../base"
import { action, formFailure, validated, type Dashboard, type FormWords, type PageContext } from "../context"
import { redirect } from "../respond"
import { href } from "../scope"
import type { SimulateValues } from "../views/sandbox-simulate"
import { errorPage } from "./errors"
import { sandboxPage } from "./sandbox"

/*
 * The Sandbox page's simulation forms (docs/dashboard.md § "Sandbox: a customer's message and
 * call"), CSRF-checked by `action`: each goes through the same domain function and body schema as
 * its API route, as one of the account's test keys.
 */

const WORDS: FormWords = {
  fromPhoneId: { label: "To phone" },
  from: { label: "Customer's number", sentences: [[/E\.164/, "Customer's number must be a phone number in international form (+ and 8–15 digits)"]] },
  content: { label: "Text" },
  replyTo: { label: "Reply to", sentences: [[/must be a msg_/, "Reply to must be a message id (msg_… or inmsg_…)"]] },
}

function valuesOf(c: PageContext): SimulateValues {
  const f = c.form
  return { keyId: f.get("keyId"), fromPhoneId: f.get("fromPhoneId"), from: f.get("from").trim(), content: f.get("content"), replyTo: f.get("replyTo").trim(), isVideo: f.get("isVideo") === "on" }
}

/** The chosen key, when it is a test key of the page's account: the sandbox page never acts live. */
async function testKeyOf(c: PageContext, keyId: string): Promise<Principal> {
  const principal = await principalOfKey(c.dash.deps.ctx, keyId)
  if (principal.env !== "test" || principal.accountId !== c.scope.account?.id) throw errors.validation(["Pick a test key of this account"])
  return principal
}

async function receive(c: PageContext): Promise<Response> {
  const values = valuesOf(c)
  try {
    const principal = await testKeyOf(c, values.keyId)
    const body = { fromPhoneId: values.fromPhoneId, from: values.from, content: values.content, ...(values.replyTo === "" ? {} : { replyTo: values.replyTo }) }
    const result = await simulateInbound(c.dash.deps.ctx, principal, validated(SandboxInboundBody, body))
    c.dash.deps.usage.recordKeyUse(principal)
    const id = result.kind === "message" ? result.message.id : ""
    return redirect(href(`/dashboard/messages/${encodeURIComponent(id)}`, { account: c.scope.account, env: "test" }))
  } catch (err) {
    return formFailure(err, (failure) => sandboxPage(c, { simulate: { form: "inbound", ...failure, values }, status: failure.status }), { words: WORDS })
  }
}

async function ring(c: PageContext): Promise<Response> {
  const values = valuesOf(c)
  try {
    const principal = await testKeyOf(c, values.keyId)
    const input = validated(SandboxCallBody, { fromPhoneId: values.fromPhoneId, from: values.from, isVideo: values.isVideo })
    const { call, policy } = await simulateCall(c.dash.deps.ctx, principal, { ...input, isVideo: values.isVideo })
    c.dash.deps.usage.recordKeyUse(principal)
    const notice =
      call.endedAtMs === null
        ? `Call ${call.callId} from ${call.caller} is ringing: reject it with POST /v1/calls/${call.callId}/reject.`
        : `Call ${call.callId} from ${call.caller} was rejected by the phone's call policy${policy.replied ? "; the reply text was sent." : "."}`
    return sandboxPage(c, { simulate: { form: "call", notice, values }, status: 201 })
  } catch (err) {
    return formFailure(err, (failure) => sandboxPage(c, { simulate: { form: "call", ...failure, values }, status: failure.status }), { words: WORDS })
  }
}

/** POST /dashboard/sandbox/inbound and /dashboard/sandbox/calls. */
export const sandboxSimulateRoutes = (dash: Dashboard) => (app: DashboardApp) =>
  app.post("/dashboard/sandbox/inbound", action(dash, receive, errorPage)).post("/dashboard/sandbox/calls", action(dash, ring, errorPage))
