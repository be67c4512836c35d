import { AppError, errors } from "../lib/errors"
import type { PhoneRow } from "../store/phones"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { resolvePhone } from "./phones"
import { type SandboxGroup } from "./sandbox"
import { sandboxGroupsOf } from "./group-sandbox-state"

/** A group as the API reports it. */
export type Group = SandboxGroup

/** Fetches the postable groups of a connected phone from WhatsApp. */
export type LiveGroupSource = (phone: PhoneRow) => Promise<Group[]>

/**
 * Lists the groups a phone can post to. Test keys see the account's sandbox groups the phone is
 * in (the seed's two and those it created or joined); live keys need a connected phone (400 otherwise) and a WhatsApp connection to ask
 * (502 when the fetch fails).
 */
export async function listGroups(
  ctx: DomainContext,
  live: LiveGroupSource,
  principal: Principal,
  fromPhoneId: string,
): Promise<Group[]> {
  const phone = await resolvePhone(ctx, principal.accountId, fromPhoneId)
  if (principal.env === "test") return await sandboxGroupsOf(ctx, phone)
  if (phone.connectionStatus !== "connected") throw errors.phoneNotConnected(phone.phoneNumber, phone.connectionStatus)
  try {
    return await live(phone)
  } catch (err) {
    if (err instanceof AppError) throw err
    throw new AppError("bad_gateway", ["Fetching the group list from WhatsApp failed; retry after a moment"], { cause: err })
  }
}
