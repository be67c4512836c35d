import { errors } from "../lib/errors"
import { isE164 } from "../lib/formats"
import { type PhoneRow } from "../store/phones"
import type { DomainContext } from "./context"

/** An account's phone by id or E.164, or 404 (also for another account's phone). */
export async function resolvePhone(ctx: DomainContext, accountId: string, ref: string): Promise<PhoneRow> {
  const phone = await ctx.store.findPhoneByRef(accountId, ref)
  if (!phone) throw errors.phoneNotFound(ref)
  return phone
}

/** Every phone of an account. */
export async function listPhones(ctx: DomainContext, accountId: string): Promise<PhoneRow[]> {
  return await ctx.store.listPhones(accountId)
}

/** Refuses a phone number that is not E.164, with the message the API and the CLI show. */
export function requireE164(phoneNumber: string): void {
  if (!isE164(phoneNumber)) throw errors.validation(["phoneNumber must be an E.164 number (+ and 8–15 digits)"])
}

/** Adds a phone to an account; it stays `unpaired` until it is paired. */
export async function addPhone(
  ctx: DomainContext,
  accountId: string,
  phoneNumber: string,
  displayName?: string,
): Promise<PhoneRow> {
  requireE164(phoneNumber)
  if (!await ctx.store.findAccount(accountId)) throw errors.accountNotFound(accountId)
  const nowMs = ctx.clock.nowMs()
  const row: PhoneRow = {
    id: ctx.ids.newId("ph"),
    accountId,
    phoneNumber,
    displayName: displayName?.trim() || phoneNumber,
    connectionStatus: "unpaired",
    lastConnectedAtMs: null,
    lastDisconnectedAtMs: null,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    lastErrorCode: null,
    lastErrorMessage: null,
    lastErrorAtMs: null,
    offlineWatchdogAtMs: null,
    waVersion: null,
    clientExpiresAtMs: null,
  }
  await ctx.store.write(async (q) => {
    // Checked inside the transaction so two concurrent adds cannot both pass.
    if (await q.findPhoneByNumber(phoneNumber)) throw errors.phoneAlreadyExists(phoneNumber)
    await q.insertPhone(row)
  })
  return row
}

/** A phone of any account by id or E.164 number (operator commands), or 404. */
export async function findPhoneAnywhere(ctx: DomainContext, ref: string): Promise<PhoneRow> {
  const phone = await ctx.store.findPhone(ref) ?? await ctx.store.findPhoneByNumber(ref)
  if (!phone) throw errors.phoneNotFound(ref)
  return phone
}

/** Removes a phone by id, or by E.164 number; its messages are kept. */
export async function removePhone(ctx: DomainContext, ref: string): Promise<PhoneRow> {
  const phone = await findPhoneAnywhere(ctx, ref)
  await ctx.store.write(async (q) => await q.deletePhone(phone.id))
  return phone
}
