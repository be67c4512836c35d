import { getCallPolicy, setCallPolicy } from "../domain/call-actions"
import type { DomainContext } from "../domain/context"
import { escapeControls } from "../lib/outside-text"
import { toIso } from "../lib/time"
import type { CallPolicy } from "../store/calls"
import { UsageError, type ParsedArgs } from "./args"
import { printJson, type CliIo } from "./io"

/*
 * `wagate phones call-policy PHONE [--reject on|off] [--reply TEXT] [--json]`: shows a phone's call
 * policy, or sets it (docs/admin.md § "Call policy"). The policy is a row in the database, read by
 * the node holding the phone at each call, so the command writes it directly, server running or not.
 */

const SWITCH: Readonly<Record<string, boolean>> = { on: true, off: false }

export async function callPolicyCommand(ctx: DomainContext, args: ParsedArgs, io: CliIo): Promise<number> {
  const ref = args.positionals[1]
  if (!ref) throw new UsageError("phones call-policy needs a PHONE_ID or +E164 number")
  const reject = args.flags.reject
  const reply = args.flags.reply
  let policy: CallPolicy
  if (reject === undefined && reply === undefined) {
    policy = await getCallPolicy(ctx, ref)
  } else {
    const current = await getCallPolicy(ctx, ref)
    if (reject !== undefined && !(reject in SWITCH)) throw new UsageError(`--reject takes on or off, not "${escapeControls(reject)}"`)
    policy = await setCallPolicy(ctx, ref, { rejectCalls: reject === undefined ? current.rejectCalls : SWITCH[reject]!, replyText: reply })
  }
  if (args.switches.has("json")) {
    printJson(io, { phoneId: policy.phoneId, rejectCalls: policy.rejectCalls, replyText: policy.replyText, updatedAt: toIso(policy.updatedAtMs) })
    return 0
  }
  const text = policy.replyText === null ? "no reply" : `reply "${escapeControls(policy.replyText)}" (at most once per caller per hour)`
  io.stdout(policy.rejectCalls ? `Calls to ${policy.phoneId} are rejected; ${text}.\n` : `Calls to ${policy.phoneId} ring (not rejected); ${text} when rejecting is on.\n`)
  return 0
}
