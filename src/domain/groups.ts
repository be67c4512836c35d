import { AppError, errors } from "../lib/errors"
import type { PhoneRow } from "../store/phones"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { resolvePhone } from "./phones"
import { SANDBOX_GROUPS, type SandboxGroup } from "./sandbox"

/** A group as the API reports it. */
export type Group = SandboxGroup

/** Fetches the postable groups of a connected phone from WhatsApp. */
export type LiveGroupSource = (phone: PhoneRow) => Promise<Group[]>

/**
 * Lists the groups a phone can post to. Test keys see the sandbox groups for every phone of the
 * account; live keys need a connected phone (400 otherwise) and a WhatsApp connection to ask
 * (502 when the fetch fails).
 */
export async function listGroups(
  ctx: DomainContext,
  live: LiveGroupSource,
  principal: Principal,
  fromPhoneId: string,
): Promise<Group[]> {
  const phone = await resolvePhone(ctx, principal.accountId, fromPhoneId)
  if (principal.env === "test") return [...SANDBOX_GROUPS]
  if (phone.connectionStatus !== "connected") throw errors.phoneNotConnected(phone.phoneNumber, phone.connectionStatus)
  try {
    return await live(phone)
  } catch (err) {
    if (err instanceof AppError) throw err
    throw new AppError("bad_gateway", ["Fetching the group list from WhatsApp failed; retry after a moment"], { cause: err })
  }
}
