import { AppError } from "../../lib/errors"
import { statusOf } from "../errors"
import type { Dashboard } from "./context"

/** The admin API's request for a button's change: its method, path and JSON body ("" for none). */
export interface AdminCall {
  method: string
  pathAndQuery: string
  body: string
}

/** What a refused button shows: the sentences, with the status they carry. */
export interface HolderFailure {
  errors: string[]
  status: number
}

/**
 * With several nodes, a button pressed on a node that does not hold the phone
 * (docs/operations.md § "Running several nodes"): once this node has checked the session and
 * the CSRF token, the same change is asked of the holder through the admin API, signed as this
 * node (src/http/forward.ts). Null when the holder made it; otherwise what to show: `err` itself
 * when it names no other holder or the holder advertised no URL, the 503 when the holder does not
 * answer, or the holder's own refusal.
 */
export async function onHolder(dash: Dashboard, err: AppError, request: Request, call: AdminCall): Promise<HolderFailure | null> {
  if (!dash.forwarder.applies(err, request)) return { errors: err.publicMessages, status: statusOf(err.kind) }
  let answer: Response | null
  try {
    answer = await dash.forwarder.toHolder(err, call)
  } catch (failure) {
    if (failure instanceof AppError) return { errors: failure.publicMessages, status: statusOf(failure.kind) }
    throw failure
  }
  if (answer === null) return { errors: err.publicMessages, status: statusOf(err.kind) }
  if (answer.ok) {
    await answer.body?.cancel()
    return null
  }
  // The holder's error envelope: its sentences are shown (escaped, like every text on the page).
  const envelope = (await answer.json().catch(() => null)) as { message?: unknown } | null
  const messages = Array.isArray(envelope?.message) ? envelope.message.filter((m): m is string => typeof m === "string").slice(0, 5) : []
  return { errors: messages.length > 0 ? messages : [`Node "${err.holderNodeId}", which holds the phone, refused the change (${answer.status})`], status: answer.status }
}
