import { errors } from "../lib/errors"
import { isE164 } from "../lib/formats"
import type { Environment, MessageType } from "../lib/vocabulary"
import { type ContactExtra, type LocationExtra, type MessageExtras, type MessageRow, type PollExtra } from "../store/messages"
import type { DomainContext } from "./context"
import { pollProblems } from "./poll-rules"

/*
 * The kinds of message beyond text and media
 * (docs/api.md § "Replies, mentions, locations, contact cards and voice notes"): a reply quoting
 * another message, mentions, a location, a contact card, a voice note. Exactly one of content/mediaUrls,
 * location and contact carries a message; replyTo, mentions and voiceNote modify it.
 */

export const MENTIONS_MAX = 50
export const LOCATION_NAME_MAX = 256
export const LOCATION_ADDRESS_MAX = 512
export const CONTACT_NAME_MAX = 256
export const CONTACT_NUMBERS_MAX = 5
export const CONTACT_ORGANIZATION_MAX = 256
export const CONTACT_EMAIL_MAX = 254
export const EMAIL_PATTERN = "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$"
const email = new RegExp(EMAIL_PATTERN)

/** The optional fields of a send that make it more than text and media. */
export interface SendKindFields {
  replyTo?: string
  mentions?: string[]
  location?: LocationExtra
  contact?: ContactExtra
  voiceNote?: boolean
  /** A poll (docs/api.md § "Polls"); multipleAnswers defaults to false. */
  poll?: Omit<PollExtra, "multipleAnswers"> & { multipleAnswers?: boolean }
}

/** One readable message per problem of the fields that make a send more than text and media. */
export function sendKindProblems(cmd: SendKindFields, content: string, mediaUrls: readonly string[]): string[] {
  const problems: string[] = []
  const carriers = [content.trim() !== "" || mediaUrls.length > 0, cmd.location !== undefined, cmd.contact !== undefined, cmd.poll !== undefined]
  if (carriers.filter(Boolean).length > 1) problems.push("send exactly one of content/mediaUrls, location, contact or poll")
  if (cmd.poll) problems.push(...pollProblems(pollOf(cmd.poll)))
  if (cmd.location) problems.push(...locationProblems(cmd.location))
  if (cmd.contact) problems.push(...contactProblems(cmd.contact))
  const mentions = cmd.mentions ?? []
  if (mentions.length > MENTIONS_MAX) problems.push(`mentions must hold at most ${MENTIONS_MAX} numbers`)
  const badMention = mentions.findIndex((n) => !isE164(n))
  if (badMention !== -1) problems.push(`mentions[${badMention}] must be an E.164 number (+ and 8–15 digits)`)
  if (mentions.length > 0 && (cmd.location || cmd.contact || cmd.poll)) problems.push("mentions go with content; a location, a contact or a poll cannot mention anyone")
  if (cmd.voiceNote === true) {
    if (mediaUrls.length !== 1) problems.push("voiceNote needs exactly one mediaUrls entry: the Ogg/Opus audio")
    if (content.trim() !== "") problems.push("content must be empty when voiceNote is true: a voice note has no caption")
  }
  return problems
}

export function locationProblems(location: LocationExtra): string[] {
  const problems: string[] = []
  if (!(location.latitude >= -90 && location.latitude <= 90)) problems.push("location.latitude must be between -90 and 90")
  if (!(location.longitude >= -180 && location.longitude <= 180)) problems.push("location.longitude must be between -180 and 180")
  if (location.name !== undefined && [...location.name].length > LOCATION_NAME_MAX) problems.push(`location.name must be at most ${LOCATION_NAME_MAX} characters`)
  if (location.address !== undefined && [...location.address].length > LOCATION_ADDRESS_MAX) {
    problems.push(`location.address must be at most ${LOCATION_ADDRESS_MAX} characters`)
  }
  return problems
}

export function contactProblems(contact: ContactExtra): string[] {
  const problems: string[] = []
  if (contact.name.trim() === "") problems.push("contact.name must not be empty")
  if ([...contact.name].length > CONTACT_NAME_MAX) problems.push(`contact.name must be at most ${CONTACT_NAME_MAX} characters`)
  if (contact.phoneNumbers.length === 0) problems.push("contact.phoneNumbers must hold at least one number")
  if (contact.phoneNumbers.length > CONTACT_NUMBERS_MAX) problems.push(`contact.phoneNumbers must hold at most ${CONTACT_NUMBERS_MAX} numbers`)
  const bad = contact.phoneNumbers.findIndex((n) => !isE164(n))
  if (bad !== -1) problems.push(`contact.phoneNumbers[${bad}] must be an E.164 number (+ and 8–15 digits)`)
  if (contact.organization !== undefined && [...contact.organization].length > CONTACT_ORGANIZATION_MAX) {
    problems.push(`contact.organization must be at most ${CONTACT_ORGANIZATION_MAX} characters`)
  }
  if (contact.email !== undefined && (contact.email.length > CONTACT_EMAIL_MAX || !email.test(contact.email))) {
    problems.push(`contact.email must be an email address of at most ${CONTACT_EMAIL_MAX} characters`)
  }
  return problems
}

/** What a validated send stores besides its text and media; null for a plain one. */
export function extrasOf(cmd: SendKindFields): MessageExtras | null {
  const extras: MessageExtras = {}
  if (cmd.mentions && cmd.mentions.length > 0) extras.mentions = cmd.mentions
  if (cmd.location) extras.location = cmd.location
  if (cmd.contact) extras.contact = cmd.contact
  if (cmd.voiceNote === true) extras.voiceNote = true
  if (cmd.poll) extras.poll = pollOf(cmd.poll)
  return Object.keys(extras).length > 0 ? extras : null
}

/** A poll as stored: multipleAnswers made explicit. */
function pollOf(poll: NonNullable<SendKindFields["poll"]>): PollExtra {
  return { question: poll.question, options: poll.options, multipleAnswers: poll.multipleAnswers ?? false }
}

/** What a message carries, as the API's `type` names it. */
export function messageTypeOf(row: Pick<MessageRow, "mediaUrls" | "extras">): MessageType {
  if (row.extras?.poll) return "poll"
  if (row.extras?.location) return "location"
  if (row.extras?.contact) return "contact"
  return row.mediaUrls.length > 0 ? "media" : "text"
}

/**
 * Checks that a reply's target exists in the sender's account and environment (`404` otherwise,
 * as for any message id of another partition). Test keys find their sandbox's messages, the
 * `inmsg_…` ones that POST /v1/sandbox/inbound simulated included.
 */
export async function checkReplyTarget(ctx: DomainContext, accountId: string, env: Environment, id: string): Promise<void> {
  const found = id.startsWith("inmsg_") ? await ctx.store.findScopedInbound(accountId, env, id) : await ctx.store.findScopedMessage(accountId, env, id)
  if (!found) throw errors.messageNotFound(id)
}

/**
 * The sandbox never downloads media, so it decides a voice note's fate from its URL alone,
 * deterministically (docs/api.md § "Sandbox (test keys)"): a path ending in `.ogg` or `.opus` is
 * a voice note; anything else fails as a live send of other audio would, with
 * `media_unsupported_type`.
 */
export function sandboxVoiceNoteRefusal(mediaUrl: string): string | null {
  let path: string
  try {
    path = new URL(mediaUrl).pathname.toLowerCase()
  } catch {
    path = ""
  }
  return path.endsWith(".ogg") || path.endsWith(".opus") ? null : "A voice note must be Ogg/Opus audio (sandbox: the URL's path must end in .ogg or .opus)"
}
